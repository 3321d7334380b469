"""What bench.chat reports about the memories a chat turn hands the model: pure functions over plain data.

- need_hit_at_3: on turns that need memories, the share of the needed ones that reach the prompt
  (the prompt holds at most 3), averaged over turns.
- precision: of every memory handed to the model, the share its turn marks relevant (all turns: a
  memory injected into a greeting counts against it).
- no_memory_injection_rate: of the turns that need no memory, the share that were handed one or more
  (the goal is at most 0.05).
- wrong_per_need_turn: on turns that need memories, the memories handed that the turn does not mark
  relevant, per turn (the held-out chats' goal: at most 0.2, one wrong citation in five such turns).
- third_person_handed_memory: of the `third_person` turns that need no memory (asked on behalf of someone
  else: "my neighbour wants to start running, any tips?"), the share handed one or more; None when there
  are none. The third_person turns where the user names their own part need memories as any other.

The model path (`model_path_summary`, bench.chat --model-path), where a model is handed up to k memories:
- k: the most memories handed in one turn (what is handed is cut by tokens, memory_token_cap, not a count).
- need_hit_at_k: as need_hit_at_3, for the memories a model is handed; all_needed_at_k: the share of
  turns that need memories handed every one they need.
- memory_tokens_mean: the memories block's tokens per turn, all turns (0 when nothing is handed), counted
  as the chat counts them (engine/text.py count_tokens: 1 per CJK character, 1 per 4 other characters).
- no_memory_rate: of the turns that need no memory, the share handed nothing; small_talk_handed_nothing:
  the same for small talk alone (shape chitchat).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from .metrics import latency_summary


@dataclass(frozen=True)
class TurnOutcome:
    case_id: str
    language: str
    shape: str
    split: str
    needs: frozenset[str]
    relevant: frozenset[str]
    injected: tuple[str, ...]  # memory keys, best first
    recall_ms: float
    memory_tokens: int = 0  # the memories block's tokens in the prompt


def summarise(outcomes: Iterable[TurnOutcome]) -> dict:
    outcomes = list(outcomes)
    need = [o for o in outcomes if o.needs]
    none = [o for o in outcomes if not o.needs]
    for_someone_else = [o for o in none if o.shape == "third_person"]
    injected = sum(len(o.injected) for o in outcomes)
    relevant = sum(sum(1 for key in o.injected if key in o.relevant) for o in outcomes)

    def share(numerator: float, denominator: int) -> float | None:
        return round(numerator / denominator, 4) if denominator else None

    return {
        "turns": len(outcomes),
        "need_turns": len(need),
        "none_turns": len(none),
        "need_hit_at_3": share(sum(len(o.needs & set(o.injected)) / len(o.needs) for o in need), len(need)),
        "precision": share(relevant, injected),
        "no_memory_injection_rate": share(sum(1 for o in none if o.injected), len(none)),
        "wrong_per_need_turn": share(
            sum(sum(1 for key in o.injected if key not in o.relevant) for o in need), len(need)
        ),
        "third_person_handed_memory": share(sum(1 for o in for_someone_else if o.injected), len(for_someone_else)),
        "memories_per_turn": share(injected, len(outcomes)),
        "recall_ms": latency_summary([o.recall_ms for o in outcomes]) if outcomes else None,
    }


def grouped(outcomes: Iterable[TurnOutcome], attribute: str) -> dict[str, dict]:
    groups: dict[str, list[TurnOutcome]] = defaultdict(list)
    for outcome in outcomes:
        groups[getattr(outcome, attribute)].append(outcome)
    return {name: summarise(group) for name, group in sorted(groups.items())}


def model_path_summary(outcomes: Iterable[TurnOutcome], token_cap: int, distractors: int) -> dict:
    outcomes = list(outcomes)
    need = [o for o in outcomes if o.needs]
    none = [o for o in outcomes if not o.needs]
    chatter = [o for o in none if o.shape == "chitchat"]

    def share(numerator: float, denominator: int) -> float | None:
        return round(numerator / denominator, 4) if denominator else None

    return {
        "k": max((len(o.injected) for o in outcomes), default=0),  # the most handed in one turn
        "memory_token_cap": token_cap,
        "distractors": distractors,
        "turns": len(outcomes),
        "need_turns": len(need),
        "need_hit_at_k": share(sum(len(o.needs & set(o.injected)) / len(o.needs) for o in need), len(need)),
        "all_needed_at_k": share(sum(1 for o in need if o.needs <= set(o.injected)), len(need)),
        "memory_tokens_mean": round(sum(o.memory_tokens for o in outcomes) / len(outcomes), 1) if outcomes else 0.0,
        "memories_per_turn": share(sum(len(o.injected) for o in outcomes), len(outcomes)),
        "no_memory_rate": share(sum(1 for o in none if not o.injected), len(none)),
        "small_talk_handed_nothing": share(sum(1 for o in chatter if not o.injected), len(chatter)),
    }
