"""What each table costs, and which jobs feed none: the dry run's jobs linked by their files
(a job needs the job that writes one of its inputs).

A *report job* writes a table, a figure or the findings (an output under
``results/tables/``, ``results/figures/``, or ``results/claims.csv`` / ``findings``). A
report job costs the hours of every job it needs (its ancestors, itself included); a paper's
tables cost the hours of every job one of them needs. A job that no report job needs feeds
nothing: the plan names it, and the tests require none.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from vlcomp.plan.dry_run import DryJob

REPORT_OUTPUTS = ("results/tables/", "results/figures/", "results/claims", "results/findings")
# the paper each report folder or figure belongs to (the BiVLC paper has SugarCrepe's table;
# VisualGPTScore's Winoground; the robustness tables are ARO's Tables 3-4 or Hendriksen's)
PAPER_OF_FOLDER = {"aro": "ARO", "bivlc": "BiVLC", "sugarcrepe": "BiVLC", "bison": "BISON",
                   "visualgptscore": "VisualGPTScore", "winoground": "VisualGPTScore"}
PAPER_OF_NAME = (("aro_", "ARO"), ("bivlc_", "BiVLC"), ("bison_", "BISON"),
                 ("hendriksen", "Hendriksen et al."), ("granularity", "Hendriksen et al."),
                 ("robustness_drops", "Hendriksen et al."))
ACROSS = "across papers"  # the findings, the cross-benchmark analysis
COMPANIONS = ("_ci", "_vs_published")


@dataclass
class JobGraph:
    """Jobs (by their index in the dry run) and the jobs whose outputs each one reads."""

    parents: dict[int, set[int]] = field(default_factory=dict)

    def ancestors(self, node: int) -> set[int]:
        """Every job ``node`` needs, itself included."""
        found, todo = {node}, [node]
        while todo:
            for parent in self.parents.get(todo.pop(), ()):
                if parent not in found:
                    found.add(parent)
                    todo.append(parent)
        return found


def job_graph(jobs: Sequence[DryJob]) -> JobGraph:
    """The dry run's jobs linked by their files: a job's parents write its inputs."""
    writer = {path: n for n, job in enumerate(jobs) for path in job.output}
    return JobGraph({n: {writer[p] for p in job.input if p in writer}
                     for n, job in enumerate(jobs)})


def report_name(job: DryJob) -> str | None:
    """The first table, figure or findings file a job writes (without ``results/`` and its
    suffix), or None: it writes none."""
    for path in job.output:
        if path.startswith(REPORT_OUTPUTS):
            return str(Path(path).with_suffix("")).removeprefix("results/")
    return None


def paper_of(name: str) -> str:
    """The paper a report file belongs to (`report_name`)."""
    parts = name.split("/")
    if parts[0] == "tables" and len(parts) > 2 and parts[1] in PAPER_OF_FOLDER:
        return PAPER_OF_FOLDER[parts[1]]
    stem = parts[-1]
    if parts[0] == "tables" and len(parts) > 2 and parts[1] == "robustness":
        return "ARO" if stem.startswith("aro_") else "Hendriksen et al."
    return next((paper for prefix, paper in PAPER_OF_NAME if stem.startswith(prefix)), ACROSS)


@dataclass(frozen=True)
class ReportCost:
    """GPU- and CPU-hours of everything a report (a table, a paper's tables) needs, and of
    what no other report (paper) needs: the findings, which read every paper, and a table's
    companions (its intervals, its published numbers) do not count as other reports."""

    name: str
    gpu_h: float
    cpu_h: float
    alone_gpu_h: float
    alone_cpu_h: float


def _costs(groups: dict[str, set[int]], hours: dict[int, tuple[float, float]],
           counts: Callable[[str], bool]) -> list[ReportCost]:
    """Each group's hours, and those of its jobs no other group for which ``counts`` holds
    needs (the findings and the tables' companions need everything: they do not count)."""
    users: dict[int, set[str]] = {}
    for name, nodes in groups.items():
        for node in nodes:
            users.setdefault(node, set())
            if counts(name):
                users[node].add(name)
    def total(nodes: Iterable[int], side: int) -> float:
        return sum(hours[n][side] for n in nodes)

    out = []
    for name, nodes in groups.items():
        alone = [n for n in nodes if users[n] <= {name}]
        out.append(ReportCost(name, total(nodes, 0), total(nodes, 1), total(alone, 0),
                              total(alone, 1)))
    return sorted(out, key=lambda c: (-c.gpu_h, -c.cpu_h, c.name))


@dataclass
class ReportPlan:
    """Per table and per paper what it costs, and the jobs that feed no report."""

    tables: list[ReportCost]
    papers: list[ReportCost]
    idle: list[DryJob]


def report_plan(jobs: Sequence[DryJob], hours: Callable[[DryJob], tuple[float, float]]
                ) -> ReportPlan:
    """What each report job and each paper's report jobs cost (``hours``: a job's GPU- and
    CPU-hours), and the jobs no report job needs."""
    graph = job_graph(jobs)
    cost = {n: hours(j) for n, j in enumerate(jobs)}
    reports = {n: name for n, j in enumerate(jobs) if (name := report_name(j))}
    needs = {n: graph.ancestors(n) for n in reports}
    tables: dict[str, set[int]] = {}
    papers: dict[str, set[int]] = {}
    for n, name in reports.items():
        tables.setdefault(name, set()).update(needs[n])
        papers.setdefault(paper_of(name), set()).update(needs[n])
    fed = set().union(*needs.values()) if needs else set()
    # the target rule needs everything and feeds nothing by design; the summary and the
    # results page show what the tables show
    shown = {"all", "summary", "results_page"}
    idle = [j for n, j in enumerate(jobs) if n not in fed and j.rule not in shown]
    return ReportPlan(
        _costs(tables, cost, lambda name: not name.endswith(COMPANIONS)
               and paper_of(name) != ACROSS),
        _costs(papers, cost, lambda name: name != ACROSS), idle)


def format_report_plan(plan: ReportPlan, min_gpu_h: float = 0.05) -> str:
    """The per-paper and per-table lines of the plan, and the jobs that feed nothing."""
    lines = ["what each paper's tables cost (everything they need; alone: what no other "
             "paper's need)",
             f"  {'paper':24} {'GPU-h':>9} {'CPU-h':>9} {'alone GPU-h':>12} {'alone CPU-h':>12}"]
    lines += [f"  {c.name:24} {c.gpu_h:>9.1f} {c.cpu_h:>9.1f} {c.alone_gpu_h:>12.1f} "
              f"{c.alone_cpu_h:>12.1f}" for c in plan.papers]
    # a table's interval and published-number companions need what it needs, and more
    main = [c for c in plan.tables if not c.name.endswith(COMPANIONS)]
    costly = [c for c in main if c.gpu_h >= min_gpu_h]
    lines.append(f"what each table costs ({len(costly)} of {len(main)} need ≥ {min_gpu_h} "
                 "GPU-h; alone: what no other table needs; their _ci / _vs_published "
                 "companions not shown)")
    lines += [f"  {c.name:52} {c.gpu_h:>8.1f} GPU-h  alone {c.alone_gpu_h:>7.1f}"
              for c in costly]
    if plan.idle:
        named = ", ".join(sorted({j.rule for j in plan.idle}))
        lines.append(f"jobs that feed no table, figure or finding: {len(plan.idle)} ({named})")
    else:
        lines.append("jobs that feed no table, figure or finding: none")
    return "\n".join(lines)
