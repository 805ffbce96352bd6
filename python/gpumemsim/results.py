"""results.py - what the API returns: a dataclass per command, built from the
command's documented JSON (doc/JSON.md, schema 1).  Every result keeps the
whole object as `raw`, displays as a table in Jupyter (_repr_html_), and
names its fields as the JSON does."""

import html
from dataclasses import dataclass, field, fields
from typing import Any, Dict, List, Optional


def _size(n):
    if not isinstance(n, int) or isinstance(n, bool):
        return n
    v, units = float(n), ["B", "KiB", "MiB", "GiB", "TiB"]
    i = 0
    while v >= 1024 and i < len(units) - 1:
        v /= 1024
        i += 1
    return "%d B" % n if i == 0 else "%.2f %s" % (v, units[i])


_SIZES = ("capacity", "peak_live", "peak_reserved", "peak_allocated", "peak_requested",
          "context_overhead", "requested_total", "live_at_end", "peak_used", "size",
          "live", "allocated", "reserved", "largest_free", "memory")


class _Result:
    """Fields from the JSON object of the same names; the rest stays in raw."""

    @classmethod
    def from_json(cls, d):
        kw = {}
        for f in fields(cls):
            if f.name == "raw":
                continue
            v = d.get(f.name)
            conv = f.metadata.get("conv")
            kw[f.name] = conv(v) if conv is not None and v is not None else v
        return cls(raw=d, **kw)

    def _rows(self):
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "raw" or isinstance(v, (list, dict)) or hasattr(v, "raw"):
                continue
            yield f.name, _size(v) if f.name in _SIZES else v

    def _repr_html_(self):
        rows = "".join("<tr><th style='text-align:left'>%s</th><td>%s</td></tr>"
                       % (html.escape(k), html.escape(str(v))) for k, v in self._rows())
        return "<table><caption>%s</caption>%s</table>" % (type(self).__name__, rows)


def _of(cls):
    return field(default=None, metadata={"conv": cls.from_json})


def _list_of(cls):
    return field(default=None, metadata={"conv": lambda v: [cls.from_json(x) for x in v]})


def _raw():
    return field(default_factory=dict, repr=False)


@dataclass
class Oom(_Result):
    event: int = None
    size: int = None
    live: int = None
    allocated: int = None
    reserved: int = None
    largest_free: int = None
    at: Optional[str] = None
    mark: Optional[str] = None
    raw: Dict[str, Any] = _raw()


@dataclass
class RunResult(_Result):
    schema: int = None
    trace: str = None
    policy: str = None
    options: Dict[str, Any] = None
    capacity: Optional[int] = None
    events: int = None
    peak_live: int = None
    peak_reserved: int = None
    peak_allocated: int = None
    peak_requested: int = None
    device_allocs: int = None
    device_frees: int = None
    alloc_retries: int = None
    fragmentation: float = None
    oom: Optional[Oom] = _of(Oom)
    observed: Optional[Dict[str, Any]] = None
    incomplete: Optional[Dict[str, Any]] = None
    sites: Optional[List[Dict[str, Any]]] = None
    stacks: Optional[List[Dict[str, Any]]] = None
    placements: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = _raw()

    @property
    def oomed(self):
        return self.oom is not None


@dataclass
class RankRun(RunResult):
    """One rank's run of a distributed job (ranks()): run's fields, its rank and file."""
    rank: int = None
    path: str = None


@dataclass
class RanksResult(_Result):
    """run --ranks: every rank's run (ranks, by rank) and the job's answer (job:
    worst_rank, peak_reserved, least_rank, spread, ooms, first_oom, ...)."""
    schema: int = None
    policy: str = None
    capacity: Optional[int] = None
    ranks_from: str = None
    ranks: List[RankRun] = _list_of(RankRun)
    job: Dict[str, Any] = None
    raw: Dict[str, Any] = _raw()

    @property
    def worst(self):
        """The worst rank's run: the first to run out, else the largest peak."""
        return next(r for r in self.ranks if r.rank == self.job["worst_rank"])

    @property
    def first_oom(self):
        return self.job["first_oom"]


@dataclass
class PlanRanksResult(_Result):
    """plan --ranks: every rank's plan (ranks) and the job's (job: policies, each
    {policy, min_capacity, rank}; gpus, each fitting every rank or not)."""
    schema: int = None
    ranks_from: str = None
    ranks: List[Dict[str, Any]] = None
    job: Dict[str, Any] = None
    raw: Dict[str, Any] = _raw()

    def min_capacity(self, policy):
        """The capacity every rank needs under policy (the neediest rank's)."""
        return next(p["min_capacity"] for p in self.job["policies"] if p["policy"] == policy)


@dataclass
class CompareRow(_Result):
    label: str = None
    policy: str = None
    peak_reserved: int = None
    peak_allocated: int = None
    fragmentation: float = None
    device_allocs: int = None
    oom: Optional[Oom] = _of(Oom)
    raw: Dict[str, Any] = _raw()


@dataclass
class CompareResult(_Result):
    schema: int = None
    trace: str = None
    capacity: Optional[int] = None
    peak_live: int = None
    results: List[CompareRow] = _list_of(CompareRow)
    by: str = None
    time_bound: float = None
    winner: Optional[str] = None
    why: str = None
    incomplete: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = _raw()

    def _repr_html_(self):
        head = "<tr><th>policy</th><th>peak reserved</th><th>peak allocated</th>" \
               "<th>fragmentation</th><th>out of memory</th></tr>"
        rows = "".join("<tr><td>%s%s</td><td>%s</td><td>%s</td><td>%.1f%%</td><td>%s</td></tr>" % (
            html.escape(str(r.label)), " &#9733;" if r.label == self.winner else "",
            _size(r.peak_reserved), _size(r.peak_allocated), 100 * (r.fragmentation or 0),
            "event %d" % r.oom.event if r.oom else "fits") for r in self.results)
        return "<table>%s%s</table><p>%s</p>" % (head, rows, html.escape(self.why or ""))


@dataclass
class TraceDiff(_Result):
    schema: int = None
    before: Dict[str, Any] = None
    after: Dict[str, Any] = None
    stacks: Dict[str, Any] = None
    raw: Dict[str, Any] = _raw()

    @property
    def grew(self):
        return self.stacks.get("grew", [])


@dataclass
class PlanResult(_Result):
    schema: int = None
    trace: str = None
    peak_live: int = None
    context_overhead: int = None
    policies: List[Dict[str, Any]] = None
    gpus: List[Dict[str, Any]] = None
    recordings: Optional[List[Dict[str, Any]]] = None
    incomplete: Optional[Dict[str, Any]] = None
    scaled: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = _raw()

    def min_capacity(self, policy="caching"):
        """The smallest capacity policy fits in (its min_capacity)."""
        for p in self.policies or []:
            if p.get("policy") == policy:
                return p.get("min_capacity")
        raise KeyError(policy)

    def _repr_html_(self):
        pols = [p.get("policy") for p in self.policies or []]
        head = "<tr><th></th>%s</tr>" % "".join("<th>%s</th>" % html.escape(str(p))
                                                for p in pols)
        mins = "<tr><th style='text-align:left'>smallest capacity</th>%s</tr>" % "".join(
            "<td>%s</td>" % _size(p.get("min_capacity")) for p in self.policies or [])
        rows = "".join("<tr><th style='text-align:left'>%s (%s)</th>%s</tr>" % (
            html.escape(str(g.get("gpu"))), _size(g.get("total")), "".join(
                "<td>%s</td>" % ("fits" if c.get("fits") else "runs out")
                for c in g.get("results", []))) for g in self.gpus or [])
        return "<table>%s%s%s</table>" % (head, mins, rows)


@dataclass
class TuneResult(_Result):
    schema: int = None
    trace: str = None
    capacity: Optional[int] = None
    peak_live: int = None
    tried: int = None
    recorded_alloc_conf: Optional[str] = None
    recommended: Optional[Dict[str, Any]] = None
    caching: List[Dict[str, Any]] = None
    bfc: List[Dict[str, Any]] = None
    incomplete: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = _raw()


@dataclass
class TuneRmmResult(_Result):
    """tune on a RAPIDS RMM log: RMM's resources and sizes, best first."""
    schema: int = None
    trace: str = None
    capacity: Optional[int] = None
    peak_live: int = None
    min_pool: Optional[int] = None
    min_arena: Optional[int] = None
    cuda_async_range: Dict[str, Any] = None
    fits: bool = None
    rmm: List[Dict[str, Any]] = None
    incomplete: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = _raw()

    @property
    def best(self):
        """The winner: {policy, setting (the Python line), peak_reserved, ...}."""
        return self.rmm[0] if self.fits and self.rmm else None


@dataclass
class CheckResult(_Result):
    schema: int = None
    checks: List[Dict[str, Any]] = None
    passed: bool = None
    failed: int = None
    trace: str = None
    policy: str = None
    incomplete: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = _raw()

    def __bool__(self):
        return bool(self.passed)


@dataclass
class InfoResult(_Result):
    schema: int = None
    trace: str = None
    format: str = None
    events: int = None
    allocs: int = None
    frees: int = None
    marks: int = None
    streams: List[int] = None
    duration_us: Optional[int] = None
    requested_total: int = None
    peak_live: int = None
    peak_live_event: Optional[int] = None
    live_at_end: int = None
    sites: Dict[str, Any] = None
    device: Optional[Dict[str, Any]] = None
    incomplete: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = _raw()


@dataclass
class ShareResult(_Result):
    schema: int = None
    capacity: int = None
    gpu: Optional[str] = None
    context_overhead: int = None
    jobs: List[Dict[str, Any]] = None
    ooms: List[Dict[str, Any]] = None
    peak_used: int = None
    fits: bool = None
    offsets: Optional[Dict[str, Any]] = None
    recommend: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = _raw()


@dataclass
class ScaleResult(_Result):
    schema: int = None
    recordings: List[Dict[str, Any]] = None
    policy: str = None
    capacity: Optional[int] = None
    points: List[Dict[str, Any]] = None
    raw: Dict[str, Any] = _raw()


@dataclass
class OomLog(_Result):
    """What `gpumemsim oom` read in an out-of-memory log: the allocator's
    state at that moment, the verdict (fragmentation or shortage), what the
    job needed (and, for PyTorch, what serving the request reserves), and
    the settings that would have served the request."""
    schema: int = None
    log: str = None
    line: int = None
    allocator: str = None
    framework: Optional[str] = None
    device: Optional[str] = None
    request: int = None
    request_exact: bool = None
    state: Dict[str, Any] = None
    verdict: str = None
    needed: int = None
    to_serve: Optional[int] = None
    available: int = None
    settings: List[str] = None
    raw: Dict[str, Any] = _raw()


@dataclass
class Policy(_Result):
    name: str = None
    models: str = None
    options: List[Dict[str, Any]] = None
    raw: Dict[str, Any] = _raw()


class Report:
    """A report page (HTML).  In Jupyter it displays inline; save() writes it."""

    def __init__(self, html_text):
        self.html = html_text

    def save(self, path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.html)
        return path

    def _repr_html_(self):
        return ('<iframe style="width:100%%;height:720px;border:1px solid #ccc" '
                'srcdoc="%s"></iframe>' % html.escape(self.html, quote=True))
