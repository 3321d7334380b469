"""Markdown tables from the benchmarks' result JSON: pure functions, one per kind of result.

docs/benchmarks.md's generated blocks are these tables (bench/docs_page.py); `python -m bench.report`
prints them for any result file.
"""

from __future__ import annotations

from .dataset import CATEGORY_NAMES


def _row(*cells) -> str:
    return "| " + " | ".join(str(cell) for cell in cells) + " |"


def _head(*names: str) -> str:
    return _row(*names) + "\n|" + "---|" * len(names)


def _num(value, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _recall_cells(recall: dict, ks: list[str]) -> list[str]:
    return [f"{recall[k]:.3f}" for k in ks]


# --- LoCoMo (bench.locomo) ----------------------------------------------------------------------


def locomo_tables(result: dict) -> str:
    """Recall@k and latency of ours and each peer, then recall@10 per question category."""
    ks = [str(k) for k in result["k"]]
    lat = result["latency_ms"]
    lines = [
        _head("", *(f"R@{k}" for k in ks), "p50 ms", "p95 ms"),
        _row(
            "memoryapp recall, search only",
            *_recall_cells(result["recall"], ks),
            lat["recall_without_embedding"]["p50"],
            lat["recall_without_embedding"]["p95"],
        ),
        _row(
            "memoryapp recall, with query embedding",
            *_recall_cells(result["recall"], ks),
            lat["recall_with_embedding"]["p50"],
            lat["recall_with_embedding"]["p95"],
        ),
    ]
    for name, peer in result.get("peers", {}).items():
        lines.append(
            _row(name, *_recall_cells(peer["recall"], ks), peer["latency_ms"]["p50"], peer["latency_ms"]["p95"])
        )
    sources = [("memoryapp", result["by_category"])] + [
        (n, p["by_category"]) for n, p in result.get("peers", {}).items()
    ]
    category = [_head("category", "n", *(f"{name} R@10" for name, _ in sources))]
    for c, values in result["by_category"].items():
        cells = [f"{by.get(c, {}).get('10', float('nan')):.3f}" for _, by in sources]
        category.append(_row(f"{c} {CATEGORY_NAMES.get(int(c), '')}", values["n"], *cells))
    return "\n".join(lines) + "\n\n" + "\n".join(category)


def score_table(result: dict) -> str:
    lines = []
    for which in ("top1", "top3"):
        dist = result["score_distribution"][which]
        rel, irr = dist["relevant"], dist["irrelevant"]
        lines += [
            f"**{which}** (relevant n={rel['n']}, irrelevant n={irr['n']})",
            "",
            _head("", "p5", "p25", "p50", "p75", "p95"),
            _row("relevant", *(rel[f"p{q}"] for q in (5, 25, 50, 75, 95))),
            _row("irrelevant", *(irr[f"p{q}"] for q in (5, 25, 50, 75, 95))),
            "",
            _head("threshold", "relevant kept", "irrelevant dropped", "precision of kept"),
        ]
        for t, row in dist["threshold_sweep"].items():
            lines.append(_row(t, row["relevant_kept"], row["irrelevant_dropped"], row["precision_kept"]))
        lines.append("")
    return "\n".join(lines)


def variant_table(result: dict) -> str:
    ks = [str(k) for k in result["k"]]
    lines = [
        _head("variant", *(f"R@{k}" for k in ks)),
        _row("baseline (RECALL_POSTGRES_ONLY)", *_recall_cells(result["recall"], ks)),
    ]
    for name, v in result["variants"].items():
        lines.append(_row(name, *_recall_cells(v["recall"], ks)))
    return "\n".join(lines)


# --- latency at scale (bench.scale) -------------------------------------------------------------


def scale_table(result: dict) -> str:
    lines = [
        _head(
            "memories",
            "recall p50 / p95",
            "recall, trigram off p50 / p95",
            "page search p50 / p95",
            "page search, trigram off",
            "page list p50 / p95",
            "writes/s (vectors given)",
            "writes/s (embedding)",
        )
    ]
    for r in result["sizes"]:

        def cell(key: str, r: dict = r) -> str:
            return f"{r[key]['p50']} / {r[key]['p95']} (n={r[key]['n']})"

        lines.append(
            _row(
                f"{r['size']:,}",
                cell("recall_ms"),
                cell("recall_no_trigram_ms"),
                cell("page_search_ms"),
                cell("page_search_no_trigram_ms"),
                cell("page_list_ms"),
                r["write_per_s_precomputed"],
                r["write_per_s_with_embedding"],
            )
        )
    return "\n".join(lines)


# --- a chat turn (bench.chat) -------------------------------------------------------------------

CHAT_COLUMNS = (
    "turns",
    "hit@3",
    "precision",
    "wrong / needed turn",
    "inj/none",
    "someone else's question handed one",
    "memories/turn",
    "recall p50 / p95 ms",
)


def _chat_cells(s: dict) -> list:
    lat = s.get("recall_ms") or {}
    return [
        s["turns"],
        _num(s["need_hit_at_3"]),
        _num(s["precision"]),
        _num(s.get("wrong_per_need_turn")),
        _num(s["no_memory_injection_rate"]),
        _num(s.get("third_person_handed_memory")),
        _num(s["memories_per_turn"], 2),
        f"{lat.get('p50', '–')} / {lat.get('p95', '–')}",
    ]


def chat_table(result: dict) -> str:
    """All turns, each split and language, then the LoCoMo questions asked inside a chat; then the same
    turns with no cues at all (plain) and with the hand-written cue file, when the run has them."""
    lines = [_head("", *CHAT_COLUMNS), _row("**all**", *_chat_cells(result["overall"]))]
    for split, part in result["by_split"].items():
        lines.append(_row(f"{split}", *_chat_cells(part["overall"])))
        lines += [_row(f"{split}, {language}", *_chat_cells(s)) for language, s in part["by_language"].items()]
    lines += [_row(f"language {language}", *_chat_cells(s)) for language, s in result["by_language"].items()]
    if result.get("locomo"):
        lines.append(_row("LoCoMo questions in a chat", *_chat_cells(result["locomo"])))
    for key, name in (("plain", "plain: no cues"), ("with_cues", "hand-written cues")):
        if result.get(key):
            lines.append(_row(f"**{name}, all**", *_chat_cells(result[key]["overall"])))
            for split, part in result[key]["by_split"].items():
                lines += [_row(f"{name}, {split} {lang}", *_chat_cells(s)) for lang, s in part["by_language"].items()]
    return "\n".join(lines)


def chat_model_path_table(result: dict) -> str:
    """What a turn with a model is handed, per split and language: the product's list (its line and token
    caps), then the list cut at 20, 30 and 50 one-liners with no token cap; beside the same stores plain."""
    lengths = list((result["model_path"].get("candidates_hit") or {}).keys())
    lines = [
        _head(
            "",
            "turns",
            f"in the list (≤ {result['model_path'].get('memory_lines', '–')} lines, "
            f"≤ {result['model_path']['memory_tokens']} tokens)",
            "tokens / turn",
            *(f"in {n} lines (tokens)" for n in lengths),
            "plain: in the list",
        )
    ]
    for split, part in result["model_path"]["by_split"].items():
        plain = ((result.get("plain") or {}).get("model_path") or {}).get("by_split", {}).get(split, {})
        for language, s in [("all", part["overall"]), *part["by_language"].items()]:
            hits = []
            for n in lengths:
                found = result["model_path"]["candidates_hit"][n].get(split, {})
                c = found.get("overall") if language == "all" else found.get("by_language", {}).get(language)
                hits.append(f"{_num(c['need_hit_at_k'])} ({c['memory_tokens_mean']:.0f})" if c else "–")
            p = plain.get("overall") if language == "all" else plain.get("by_language", {}).get(language)
            lines.append(
                _row(
                    f"{split}, {language}",
                    s["turns"],
                    _num(s["need_hit_at_k"]),
                    f"{s['memory_tokens_mean']:.0f}",
                    *hits,
                    _num(p["need_hit_at_k"]) if p else "–",
                )
            )
    return "\n".join(lines)


def chat_shape_table(result: dict) -> str:
    """Per shape of turn (past, after_change, plan, chitchat, ...)."""
    lines = [_head("shape", *CHAT_COLUMNS)]
    lines += [_row(shape, *_chat_cells(s)) for shape, s in result["by_shape"].items()]
    return "\n".join(lines)


# --- what a chat teaches (bench.extraction) -----------------------------------------------------

EXTRACTION_METRICS = (
    "precision",
    "recall",
    "kind_accuracy",
    "detail_retention",
    "update_detection",
    "wrong_replacements",
    "update_or_asked",
)


def extraction_table(result: dict) -> str:
    lines = [_head("extractor, split", "windows", *(m.replace("_", " ") for m in EXTRACTION_METRICS))]
    for extractor, values in result["by_extractor"].items():
        lines.append(
            _row(
                f"**{extractor}, all**",
                values["overall"]["windows"],
                *(_num(values["overall"].get(m)) for m in EXTRACTION_METRICS),
            )
        )
        for name, part in values.get("by_set", values["by_split"]).items():  # split/set, or a split (older runs)
            for language, s in part["by_language"].items():
                lines.append(
                    _row(f"{extractor}, {name} {language}", s["windows"], *(_num(s.get(m)) for m in EXTRACTION_METRICS))
                )
    locomo = {
        name: v["by_source"]["locomo"]
        for name, v in result["by_extractor"].items()
        if "locomo" in v.get("by_source", {})
    }
    if locomo:
        lines += [
            "",
            "LoCoMo dev, turn level (a turn is positive when a session observation cites it):",
            "",
            _head(
                "extractor",
                "turns",
                "PR-AUC",
                "recall at precision 0.8",
                "precision at recall 0.8",
                "precision / recall at the shipped threshold",
                "observation coverage",
            ),
        ]
        for name, m in locomo.items():
            at = m["at_threshold"]
            lines.append(
                _row(
                    name,
                    m["turns"],
                    _num(m.get("pr_auc")),
                    _num(m.get("recall_at_p80")),
                    _num(m.get("precision_at_r80")),
                    f"{_num(at['precision'])} / {_num(at['recall'])}",
                    _num(m["observation_coverage"]),
                )
            )
    if fidelity := result.get("fidelity"):
        lines += [
            "",
            "Fidelity (bench/fidelity_cases/, 250 written messages: every memory the user's own words, every "
            "number, time, code, URL and name kept; `learned`: the share of messages that yielded a memory):",
            "",
            _head("extractor", "language", "messages", "learned", "fidelity", "verbatim", "values kept"),
        ]
        for name, values in fidelity.items():
            for language, m in [("all", values["overall"]), *values["by_language"].items()]:
                lines.append(
                    _row(
                        name,
                        language,
                        m["cases"],
                        _num(m["learned"]),
                        _num(m["fidelity"]),
                        _num(m["verbatim"]),
                        _num(m["values_kept"]),
                    )
                )
    return "\n".join(lines)


# --- chat sessions under load (bench.load) ------------------------------------------------------


def _ms(latency: dict, name: str, q: str) -> str:
    return f"{latency[name][q]:,.0f}" if name in latency else "–"


def load_table(results: list[dict]) -> str:
    """One row per run: throughput, errors and the latencies a user and an API client see."""
    lines = [
        _head(
            "run",
            "chat turns",
            "API reads",
            "errors",
            "lost messages",
            "first token p50 / p95 ms",
            "whole turn p50 / p95 ms",
            "API list p95 ms (memories / chats)",
            "API search p50 / p95 ms",
        )
    ]
    for r in results:
        config, lat = r["config"], r["latency_ms"]

        def both(name: str, lat: dict = lat) -> str:
            return f"{_ms(lat, name, 'p50')} / {_ms(lat, name, 'p95')}"

        lines.append(
            _row(
                f"{config['model']} model, {config['sessions']} sessions, think {config['think']:g} s",
                f"{r['chat_turns']:,} ({r['chat_turns_per_second']}/s)",
                f"{r['api_reads']:,}",
                sum(r["errors"].values()),
                r["lost_messages"],
                both("chat first token"),
                both("chat turn (whole reply)"),
                f"{_ms(lat, 'GET /api/memories', 'p95')} / {_ms(lat, 'GET /api/conversations', 'p95')}",
                both("POST /api/memories/search"),
            )
        )
    return "\n".join(lines)


# --- what each graph extraction costs (bench.graph_cost) ----------------------------------------


def graph_cost_table(result: dict) -> str:
    """Per mode and language: our seconds, model calls, rounds, tokens, embedder calls; then the model's calls
    by purpose and the estimate with a real model."""
    lines = [
        _head(
            "GRAPH_EXTRACTION, memories",
            "s per memory, ours (mean / p95)",
            "model calls (min-max)",
            "rounds",
            "tokens in / out",
            "embedder calls (texts)",
        )
    ]
    for mode, part in result["modes"].items():
        for label, s in [("all", part["overall"]), *part["by_language"].items()]:
            seconds, calls = s["seconds_per_memory"], s["model_calls_per_memory"]
            lines.append(
                _row(
                    f"{mode}, {label} ({s['memories']})",
                    f"{seconds['mean']:.3f} / {seconds['p95']:.3f}",
                    f"{calls['mean']:.2f} ({calls['min']}-{calls['max']})",
                    f"{s['model_rounds_per_memory']:.2f}",
                    f"{s['prompt_tokens_per_memory']:,.0f} / {s['completion_tokens_per_memory']:,.0f}",
                    f"{s['embedding_calls_per_memory']:.2f} ({s['embedded_texts_per_memory']:.1f})",
                )
            )
    lines += ["", _head("graphiti's call", "calls per memory", "memories calling", "tokens in / out per call")]
    overall = result["modes"]["model"]["overall"]
    for purpose, p in overall["by_purpose"].items():
        lines.append(
            _row(
                purpose,
                f"{p['calls_per_memory']:.2f}",
                f"{p['memories_calling']} of {overall['memories']}",
                f"{p['prompt_tokens_per_call']:,.0f} / {p['completion_tokens_per_call']:,.0f}",
            )
        )
    a = result["assumptions"]
    low, high = a["latency_s_per_call"]
    lines += [
        "",
        f"With a real model ({low:g}-{high:g} s a call; USD {a['usd_per_million_in']:g} / "
        f"{a['usd_per_million_out']:g} per million tokens in / out, {a['price_of']}):",
        "",
        _head("GRAPH_EXTRACTION", "s per memory", "memories per hour, one worker", "USD per 1,000 memories"),
    ]
    for mode, e in result["estimate"].items():
        lo, hi = e["seconds_per_memory"]
        per_hour = " to ".join(f"{n:,}" for n in dict.fromkeys(e["memories_per_hour_one_worker"]))
        lines.append(
            _row(mode, f"{lo:g}" if lo == hi else f"{lo:g} to {hi:g}", per_hour, f"{e['usd_per_1000_memories']:.2f}")
        )
    return "\n".join(lines)


# --- secrets never stored (bench.secrets) -------------------------------------------------------


def _rate(value) -> str:
    return "–" if value is None else f"{value * 100:.1f} %"


def secrets_table(result: dict) -> str:
    """Per split and language: secrets offered and stored, ordinary sentences and the share refused."""
    lines = [_head("split", "language", "secrets", "stored", "ordinary", "over-blocked")]
    for split, part in result["by_split"].items():
        for language, s in part["by_language"].items():
            lines.append(_row(split, language, s["secrets"], s["stored"], s["ordinary"], _rate(s["over_blocked_rate"])))
    if result.get("locomo"):
        lo = result["locomo"]
        lines += ["", f"LoCoMo dev turns refused: {lo['blocked']} of {lo['turns']:,} ({_rate(lo['blocked_rate'])})."]
    baseline = result.get("embedding_baseline_dev")
    if baseline:
        cells = "; ".join(
            f"threshold {b['threshold']:g}: {b['stored']} stored, {_rate(b['over_blocked_rate'])} over-blocked"
            for b in baseline.values()
        )
        lines += ["", f"The trained alternative on dev (`--baseline`): {cells}."]
    return "\n".join(lines)


# --- what a new statement changes (bench.changes) -----------------------------------------------

CHANGE_METRICS = ("update_detection", "wrong_replacements", "restate_detection", "wrong_skips")
DECIDERS = {"offline": "rules", "learned": "learned + rules' changes"}  # the result's keys, as the docs name them


def changes_table(result: dict) -> str:
    """Per split, decider (the rules alone, the learned model) and language."""
    lines = [_head("split", "decider", "language", "statements", *(m.replace("_", " ") for m in CHANGE_METRICS))]
    for split, deciders in result["by_split"].items():
        for decider, languages in deciders.items():
            for language, s in languages.items():
                lines.append(
                    _row(
                        split,
                        DECIDERS.get(decider, decider),
                        language,
                        s["statements"],
                        *(_num(s.get(m)) for m in CHANGE_METRICS),
                    )
                )
    return "\n".join(lines)


# --- entities without a model (bench.entities) --------------------------------------------------


def entities_table(result: dict) -> str:
    """Per split and language: precision and recall, typed and untyped, and recall on unlisted names."""
    lines = [
        _head(
            "split",
            "language",
            "sentences",
            "gold",
            "precision",
            "recall",
            "typed P",
            "typed R",
            "recall on names the gazetteer lacks",
        )
    ]
    for split, part in result["by_split"].items():
        for language, s in part["by_language"].items():
            lines.append(
                _row(
                    split,
                    language,
                    s["sentences"],
                    s["gold"],
                    _num(s["precision"]),
                    _num(s["recall"]),
                    _num(s["typed_precision"]),
                    _num(s["typed_recall"]),
                    _num(s.get("unlisted_recall")),
                )
            )
    t = result.get("timing")
    if t:
        by_language = ", ".join(f"{k} {v:g}" for k, v in t["us_per_memory_by_language"].items())
        lines += [
            "",
            f"- Time per memory: {t['us_per_memory']:g} µs ({by_language} µs); the first call "
            f"{t['first_call_s']:g} s (loading jieba).",
        ]
    for split, r in (result.get("resolution") or {}).items():
        names = r["names_only"]
        lines.append(
            f"- Resolution, {split}: names only {names['accuracy']:.3f} over {r['cases']} names "
            f"({names['wrong_merges']} wrong merges, {names['missed_merges']} missed)."
        )
    return "\n".join(lines)


# --- learning from a ChatGPT or Claude export (bench.ingest_history) ----------------------------------


def _against(value: float, goal: float, digits: int = 1) -> str:
    """A figure, marked where it misses its goal (at most `goal`)."""
    return f"{value:.{digits}f}" + ("" if value <= goal else " **missed**")


def ingest_history_table(result: dict) -> str:
    """Per export: the preview, the learning with no model, memory growth, what it queued; then the dated
    questions, then the scripted model's calls."""
    formats, goals = result["formats"], result["goals"]
    rows = [
        (
            "conversations (user turns)",
            [f"{f['conversations']:,} ({f['user_turns']:,})" for f in formats.values()],
            "–",
        ),
        ("receive: kept and previewed, s", [f"{f['receive_s']:.2f}" for f in formats.values()], "–"),
        (
            "learn, no model, s",
            [_against(f["learn_s"], goals["learn_seconds"]) for f in formats.values()],
            f"≤ {goals['learn_seconds']}",
        ),
        ("conversations/s", [f"{f['conversations_per_s']:.2f}" for f in formats.values()], "–"),
        (
            "memories created / superseded (the preview expected)",
            [f"{f['created']:,} / {f['superseded']:,} ({f['expected_memories']:,})" for f in formats.values()],
            "–",
        ),
        ("changes left as questions to the user", [f"{f['questions_asked']:,}" for f in formats.values()], "–"),
        (
            "resident memory growth, peak / at the end, MB",
            [
                f"{_against(f['rss_mb']['growth_peak'], goals['rss_growth_mb'])} / {f['rss_mb']['growth_after']:.1f}"
                + "".join(f" (after {name} in the same process)" for name in f["rss_mb"]["ran_before"][-1:])
                for f in formats.values()
            ],
            f"≤ {goals['rss_growth_mb']} (peak)",
        ),
        (
            "graph syncs queued (counted, not run)",
            [f"{f['queued'].get('sync_memory', 0):,}" for f in formats.values()],
            "–",
        ),
    ]
    lines = [_head("", *(f["file"] for f in formats.values()), "goal")]
    lines += [_row(label, *cells, goal) for label, cells, goal in rows]
    lines += ["", _head("asked after the import (no model)", "must name", *(f["file"] for f in formats.values()))]
    first = next(iter(formats.values()))
    for n, check in enumerate(first["dated"]):
        cells = []
        for f in formats.values():
            c = f["dated"][n]
            cells.append("pass" if c["passed"] else "**fail**: " + " · ".join(c["handed"][:3] or ["nothing"]))
        lines.append(_row(check["question"], check["expects"], *cells))
    s = result.get("scripted")
    if s:
        calls = ", ".join(f"{task} {n}" for task, n in s["calls_by_task"].items() if n)
        lines += [
            "",
            f"Scripted model, {s['conversations']} conversations of {s['file']} spread over its dates "
            f"({s['user_turns']:,} user turns): {s['model_calls']} model calls ({calls}), "
            f"{_against(s['calls_per_5_user_turns'], goals['calls_per_5_user_turns'], 3)} per 5 user turns "
            f"(goal ≤ {goals['calls_per_5_user_turns']:g}; the extraction calls alone, one a window, "
            f"{s['extract_calls_per_5_user_turns']:.3f}); {s['learn_s']:.1f} s.",
        ]
    return "\n".join(lines)


RESPONSIVENESS_PHASES = {
    "alone": "nothing else of the bench's running",
    "import": "an import learning in another process",
    "import_niced": "the same, that process under `nice -n 19`",
    "import_one_blas_thread": "the same, that process with `OPENBLAS_NUM_THREADS=1`",
}
SHORT_PHASES = {
    "import": "while an import learns",
    "import_niced": "niced",
    "import_one_blas_thread": "one BLAS thread",
}


def ingest_history_api_table(result: dict) -> str:
    """The API's p50 / p95 per phase, the p95 against the phase with nothing running, what the import took."""
    r, searched = result["responsiveness"], next(iter(result["formats"].values()))["file"]
    phases = r["phases"]
    calls = list(phases["alone"]["latency_ms"])
    low, high = r["pause_s"]
    lines = [
        f"The API while an import learns: one client, {' and '.join(f'`{c}`' for c in calls)} in turn, one at "
        f"a time, {low:g}–{high:g} s apart, as the user of the {searched} import ({r['searched_memories']} "
        "memories, earlier versions included):",
        "",
        _head("while", *(f"{c}: p50 / p95 ms (n)" for c in calls), "p95 ÷ alone", "the import: learnt in (its CPU)"),
    ]
    for name, phase in phases.items():
        cells = [f"{v['p50']:.1f} / {v['p95']:.1f} ({v['n']})" for v in phase["latency_ms"].values()]
        ratio = " / ".join(f"×{x:.2f}" for x in phase["p95_ratio"].values()) if name != "alone" else "–"
        learner = phase.get("learner")
        took = f"{learner['learn_s']:.1f} s ({learner['cpu_s']:.1f} s)" if learner else "–"
        lines.append(_row(RESPONSIVENESS_PHASES.get(name, name), *cells, ratio, took))
    errors = {name: sum(p["errors"].values()) for name, p in phases.items() if p["errors"]}
    if errors:
        lines += ["", "**Failed requests**: " + ", ".join(f"{n} {RESPONSIVENESS_PHASES[k]}" for k, n in errors.items())]
    return "\n".join(lines)


# --- The summary: one line of figures per step (docs/benchmarks.md's first table) ----------------------


def _p(latency: dict) -> str:
    return f"p50 {latency['p50']:.1f} / p95 {latency['p95']:.1f} ms"


def _extraction_headline(r: dict) -> str:
    sets = r["by_extractor"]["learned"]["by_set"]
    windows, changes = sets["holdout/windows"]["overall"], sets["holdout/changes_b"]["overall"]
    fidelity = r["fidelity"]["learned"]["by_language"]
    return (
        f"learned default, holdout windows: precision {windows['precision']:.3f}, recall {windows['recall']:.3f}; "
        f"stated changes (changes_b) applied {changes['update_detection']:.3f}, applied or asked "
        f"{changes['update_or_asked']:.3f}, wrong {changes['wrong_replacements']:.3f}; words kept (fidelity) "
        f"en {fidelity['en']['fidelity']:.3f} / zh {fidelity['zh']['fidelity']:.3f}"
    )


def _chat_headline(r: dict) -> str:
    o = r["overall"]
    line = (
        f"needed memory in the top 3: {o['need_hit_at_3']:.3f}, precision {o['precision']:.3f}, small talk "
        f"handed a memory {o['no_memory_injection_rate']:.3f}; recall {_p(o['recall_ms'])}"
    )
    if o.get("wrong_per_need_turn") is not None:
        line += f"; wrong memories per needed turn {o['wrong_per_need_turn']:.3f}"
    if o.get("third_person_handed_memory") is not None:
        line += f"; someone else's question handed one {o['third_person_handed_memory']:.3f}"
    return line


def _chat_model_path_headline(r: dict) -> str:
    path = r["model_path"]
    hits = "; ".join(
        f"{n} lines {c['holdout']['overall']['need_hit_at_k']:.3f}"
        for n, c in (path.get("candidates_hit") or {}).items()
        if "holdout" in c
    )
    return (
        f"holdout, needed memory in the list {path['overall']['need_hit_at_k']:.3f} at "
        f"{path['overall']['memory_tokens_mean']:.0f} tokens a turn ({r['distractors']} distractors); {hits}"
    )


def _locomo_headline(r: dict) -> str:
    line = f"recall@10 {r['recall']['10']:.3f}; recall {_p(r['latency_ms']['recall_with_embedding'])}"
    for name, peer in r.get("peers", {}).items():
        line += f"; {name} {peer['recall']['10']:.3f}"
    return line


def _scale_headline(r: dict) -> str:
    return "; ".join(f"{s['size']:,} memories: recall {_p(s['recall_ms'])}" for s in r["sizes"])


def _graph_cost_headline(r: dict) -> str:
    e = r["estimate"]
    low, high = e["model"]["seconds_per_memory"]
    return (
        f"rules {e['rules']['seconds_per_memory'][0]:.2f} s a memory, free; with a model {low:.1f}–{high:.1f} s "
        f"and ${e['model']['usd_per_1000_memories']:.2f} per 1,000 memories"
    )


def _secrets_headline(r: dict) -> str:
    return f"{r['stored']} of {r['secrets']} secrets stored, {r['over_blocked_rate']:.3f} of ordinary sentences blocked"


def _changes_headline(r: dict) -> str:
    h = r["by_split"]["holdout"]["learned"]
    return "; ".join(
        f"{language}: changes found {h[language]['update_detection']:.3f}, wrong "
        f"{h[language]['wrong_replacements']:.3f}"
        for language in ("en", "zh")
        if language in h
    )


def _entities_headline(r: dict) -> str:
    a = r["by_split"][r["headline_split"]]["all"]
    return f"{r['headline_split']}: precision {a['precision']:.3f}, recall {a['recall']:.3f}"


# --- the embedders, each with the learned models retrained on its vectors (bench.embedders --quality) ---


def _pair(a, b, digits: int = 3) -> str:
    return f"{_num(a, digits)} / {_num(b, digits)}"


def embedders_table(result: dict) -> str:
    """One column per embedder: the chat, the model path, LoCoMo, extraction, changes, then speed."""
    models = result["models"]
    names = list(models)
    rows: list[tuple[str, list[str]]] = [("dimension", [str(m["dim"]) for m in models.values()])]
    for language in ("en", "zh", "mixed", "all"):
        rows.append(
            (
                f"bench.chat dev+holdout need-hit@3 / precision, {language} "
                f"({next(iter(models.values()))['chat'][language]['turns']} turns)",
                [
                    _pair(m["chat"][language]["need_hit_at_3"], m["chat"][language]["precision"])
                    for m in models.values()
                ],
            )
        )
    rows += [
        (
            "small talk and general questions handed a memory",
            [_num(m["chat"]["all"]["no_memory_injection_rate"]) for m in models.values()],
        ),
        ("model path need-hit (holdout, 500 distractors)", [_num(m["model_path_need_hit"]) for m in models.values()]),
        (
            "chat turn's recall with its query embedding at 1,000 memories, p50 / p95 ms (dev)",
            [_pair(m["chat_recall_ms_1k"]["p50"], m["chat_recall_ms_1k"]["p95"], 1) for m in models.values()],
        ),
        (
            "LoCoMo dev R@5 / R@10 / R@20 (graph off)",
            [" / ".join(_num(m["locomo"]["recall"][k]) for k in ("5", "10", "20")) for m in models.values()],
        ),
        (
            "LoCoMo recall with the query embedding, p50 / p95 ms",
            [
                _pair(m["locomo"]["recall_with_embedding_ms"]["p50"], m["locomo"]["recall_with_embedding_ms"]["p95"], 1)
                for m in models.values()
            ],
        ),
        (
            "extraction, learned, all windows: precision / recall / kind accuracy / update or asked",
            [
                " / ".join(
                    _num(m["extraction"][k]) for k in ("precision", "recall", "kind_accuracy", "update_or_asked")
                )
                for m in models.values()
            ],
        ),
    ]
    for language in ("en", "zh"):
        rows.append(
            (
                f"changes holdout, learned: found / wrong replacements, {language}",
                [
                    _pair(
                        m["changes_holdout"][language]["update_detection"],
                        m["changes_holdout"][language]["wrong_replacements"],
                    )
                    for m in models.values()
                ],
            )
        )
    for language, count in result["queries"].items():
        rows.append(
            (
                f"query embedding p50 / p95 ms, {language} ({count} queries x {result['rounds']}, interleaved)",
                [_pair(m["query_ms"][language]["p50"], m["query_ms"][language]["p95"], 1) for m in models.values()],
            )
        )
    rows += [
        (
            f"ingest ({result['ingested']} texts, batches of 64, interleaved), texts/s",
            [f"{m['ingest_texts_per_s']:g}" for m in models.values()],
        ),
        ("minutes for its retraining and steps", [f"{m['seconds']['all'] / 60:.1f}" for m in models.values()]),
    ]
    return "\n".join([_head("", *names), *(_row(label, *cells) for label, cells in rows)])


def _embedders_headline(r: dict) -> str:
    return "; ".join(
        f"{name}: chat hit@3 {m['chat']['all']['need_hit_at_3']:.3f}, LoCoMo R@10 {m['locomo']['recall']['10']:.3f}, "
        f"chat recall p95 {m['chat_recall_ms_1k']['p95']:.0f} ms at 1k"
        for name, m in r["models"].items()
    )


def _ingest_history_headline(r: dict) -> str:
    line = "; ".join(
        f"{f['conversations']:,} conversations ({f['file']}) learnt in {f['learn_s']:.0f} s, "
        + ("" if f["rss_mb"]["ran_before"] else f"memory +{f['rss_mb']['growth_peak']:.0f} MB, ")
        + f"dated questions {sum(c['passed'] for c in f['dated'])}/{len(f['dated'])}"
        for f in r["formats"].values()
    )
    if r.get("scripted"):
        line += f"; scripted model {r['scripted']['calls_per_5_user_turns']:.2f} calls per 5 user turns"
    return line


def _ingest_history_api_headline(r: dict) -> str:
    phases = r["responsiveness"]["phases"]
    return "; ".join(
        f"{call} p95 {phases['alone']['latency_ms'][call]['p95']:.0f} ms alone, "
        + ", ".join(
            f"{phase['latency_ms'][call]['p95']:.0f} ms (×{phase['p95_ratio'][call]:.2f}) {SHORT_PHASES.get(name, name)}"
            for name, phase in phases.items()
            if name != "alone"
        )
        for call in phases["alone"]["latency_ms"]
    )


def _load_headline(r: dict) -> str:
    lat = r["latency_ms"]
    return (
        f"{r['config']['sessions']} sessions: first token {_p(lat['chat first token'])}, "
        f"{sum(r['errors'].values())} errors, {r['lost_messages']} lost"
    )


HEADLINES = {
    "extraction": _extraction_headline,
    "chat": _chat_headline,
    "chat_past": _chat_headline,
    "chat_model_path": _chat_model_path_headline,
    "locomo": _locomo_headline,
    "locomo_peers": _locomo_headline,
    "scale_1k": _scale_headline,
    "scale": _scale_headline,
    "graph_cost": _graph_cost_headline,
    "secrets": _secrets_headline,
    "changes": _changes_headline,
    "entities": _entities_headline,
    "load_offline": _load_headline,
    "load_scripted": _load_headline,
    "load_offline_think15": _load_headline,
    "embedders": _embedders_headline,
    "ingest_history": _ingest_history_headline,
    "ingest_history_api": _ingest_history_api_headline,
}


def headline(step_name: str, result: dict) -> str:
    """The step's few figures a reader looks for first; the detail pages hold the rest."""
    try:
        return HEADLINES[step_name](result)
    except (KeyError, TypeError, IndexError):
        return "see its page (the result has an older shape)"
