"""How many episodes short chats leave, with no model: `python -m bench.episodes [--json PATH]`.

Each chat below is a short chat as people have them (context given before a question, a health detail
said as a complaint, a family fact, a standing instruction, small talk, in English and Chinese) or one
that settles something (a plan, a decision, an event). Every chat is ended, extracted and consolidated
with no model, as the chat-end job does, for a fresh user. An episode is worth keeping only for the
chats that settle something; the others should leave none. Also checked: every episode is whole
sentences the user said (none cut mid-sentence).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from . import runtime

# Short chats that yield typed memories, or nothing: no episode is wanted (the first 18 as the issue's
# "18 short chats", then two that end on a thank-you with a plan cue and no plan).
ORDINARY = [
    ("I'm vegetarian, by the way. Any quick dinner ideas?",),
    ("My back has been killing me since I started working from the sofa. Which chair should I get?",),
    ("My daughter Mia turns six in March. What cake is easy to bake?",),
    ("Please keep your answers short, bullet points are fine.",),
    ("I use Neovim for everything. How do I split a window?",),
    ("hi", "thanks!"),
    ("What's the capital of Australia?",),
    ("I live in Lisbon now. Is the tram pass worth it?",),
    ("I'm allergic to penicillin. What else treats a sinus infection?",),
    ("我是素食者。晚饭吃什么好？",),
    ("最近腰一直疼，坐久了更难受。有什么缓解的办法吗？",),
    ("我女儿今年六岁，在上一年级。有什么适合她的书？",),
    ("回答简短一点，用中文。",),
    ("我现在住在杭州。周边有什么好玩的？",),
    ("你好", "谢谢！"),
    ("解释一下什么是量子纠缠",),
    ("我用 Python 写后端。怎么读 CSV 文件？",),
    ("我对花生过敏。外卖点什么安全？",),
    ("How do I undo my last git commit?", "Thanks, I'll try that tomorrow."),
    ("怎么清理 Docker 的缓存？", "好的，我明天试试。"),
]

# Chats that settle something the typed memories do not hold: one episode each is wanted.
SETTLING = [
    ("We decided to move the staging stack to Kubernetes next week. What should I check first?",),
    ("The release went out yesterday and the billing page crashed twice. How do I write a postmortem?",),
    ("Let's go with Postgres for the new service, the team agreed this morning. Any schema tips?",),
    ("我们决定下周一把预发环境迁到 Kubernetes。迁移前要注意什么？",),
    ("昨天上线的新版本支付页崩了两次，已经回滚了。复盘怎么写？",),
    ("我和老婆商量好了，五月份去京都玩一周。要提前订什么？",),
]

_STAMP = re.compile(r"^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}\] ")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.episodes", description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="write the result here as JSON")
    parser.add_argument("--show-misses", type=int, default=0, help="list up to N chats that went wrong")
    return parser.parse_args(argv)


def _run_chat(user, turns: tuple[str, ...]) -> list[str]:
    """End, extract and consolidate one chat with no model; the episodes it left."""
    from django.utils import timezone

    from conversations.models import Conversation, Message
    from memoryapp.engine.learning import extraction
    from memoryapp.engine.learning.consolidation import consolidate
    from memoryapp.models import Memory

    conversation = Conversation.objects.create(user=user, title="bench")
    ids = []
    for text in turns:
        ids.append(Message.objects.create(conversation=conversation, role="user", content=text).pk)
        ids.append(Message.objects.create(conversation=conversation, role="assistant", content="Noted.").pk)
    run, _created = extraction.queue_run(conversation, ids)
    if extraction.claim(run):
        extraction.extract(run, llm=None)
    conversation.ended_at = timezone.now()
    conversation.save(update_fields=["ended_at"])
    written = [e.memory_id for e in consolidate(conversation, llm=None) if e.memory_id]
    return list(Memory.objects.filter(pk__in=written).values_list("content", flat=True))


def _whole(episode: str, turns: tuple[str, ...]) -> bool:
    """Every sentence of the episode is a whole sentence the user said."""
    said = " ".join(turns)
    body = _STAMP.sub("", episode)
    parts = [p.strip() for p in re.split(r"(?<=[.!?。！？])\s*", body) if p.strip()]
    return bool(parts) and all(p.rstrip(".。") in said for p in parts)


def run(args: argparse.Namespace) -> dict:
    runtime.setup_django()
    from memoryapp.models import Memory

    user = runtime.fresh_user("episodes")
    rows = []
    for group, chats in (("ordinary", ORDINARY), ("settling", SETTLING)):
        for turns in chats:
            episodes = _run_chat(user, turns)
            rows.append(
                {
                    "group": group,
                    "turns": list(turns),
                    "episodes": episodes,
                    "whole": all(_whole(e, turns) for e in episodes),
                }
            )
    ordinary = [r for r in rows if r["group"] == "ordinary"]
    settling = [r for r in rows if r["group"] == "settling"]
    memories = Memory.objects.filter(user=user)
    return {
        "chats": len(rows),
        "ordinary_chats": len(ordinary),
        "ordinary_episodes": sum(len(r["episodes"]) for r in ordinary),
        "settling_chats": len(settling),
        "settling_with_episode": sum(1 for r in settling if r["episodes"]),
        "episodes_whole": all(r["whole"] for r in rows),
        "memories": memories.count(),
        "episodes": memories.filter(kind="episode").count(),
        "rows": rows,
    }


def print_summary(result: dict) -> None:
    print(
        f"{result['ordinary_episodes']} episodes from {result['ordinary_chats']} ordinary short chats (want 0); "
        f"{result['settling_with_episode']} of {result['settling_chats']} chats that settle a plan, decision or "
        f"event left one (want all); every episode whole sentences: {result['episodes_whole']}; "
        f"the user's memories: {result['memories']}, of them episodes: {result['episodes']}"
    )


def print_misses(result: dict, limit: int) -> None:
    misses = [r for r in result["rows"] if (r["group"] == "ordinary") == bool(r["episodes"]) or not r["whole"]]
    for row in misses[:limit]:
        print(f"- {row['group']}: {' / '.join(row['turns'])}\n  -> {row['episodes'] or 'no episode'}")


def main(argv: list[str] | None = None) -> None:
    runtime.run_benchmark("bench.episodes", argv, parse_args, run, print_summary, print_misses)


if __name__ == "__main__":
    main()
