/* report.js - the script of `gpumemsim report`, inlined in every page.  The
   page is whole without it (tables, pictures, each block's details in its
   <title>); this makes it an explorer: details and call stacks on hover
   (kept by a click), the timeline redrawn from the finest data its zoom
   needs, on an axis of events or seconds, a click on it finding the
   allocator's state the page carries nearest that event; and a self-test
   run when the page is opened with #selftest. */
"use strict";
var errs = [];
window.addEventListener("error", function (e) { errs.push(String(e.message)); });
var gms = {};	/* what the self-test drives */

function fmtSize(n) {
  var u = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"], i = 0;
  if (n < 1024) return n + " B";
  while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
  return n.toFixed(2) + " " + u[i];
}

function jsonOf(id) {
  var el = document.getElementById(id);
  return el ? JSON.parse(el.textContent) : null;
}
var STACKS = null;
function stackText(i) {
  if (STACKS === null) STACKS = jsonOf("stacks-data") || [];
  if (i === null || i === undefined || i < 0 || i >= STACKS.length) return "";
  return STACKS[i].split("\n").map(function (f) { return "  " + f; }).join("\n");
}

/* The details panel: what the pointer is on, or what a click kept. */
var panel = { el: null, pinned: null };
function showDetails(text, pin, el) {
  if (!panel.el) return;
  if (panel.pinned && !pin) return;
  panel.el.textContent = text;
  if (pin !== undefined && pin !== false) panel.pinned = panel.pinned === el ? null : el;
}
function describe(el) {
  var t = el.querySelector("title"), s = t ? t.textContent : "";
  if (el.hasAttribute("data-s"))
    s += "\nallocated from (innermost first):\n" + stackText(+el.getAttribute("data-s"));
  return s;
}
function initDetails() {
  panel.el = document.getElementById("details");
  var on = null;
  function target(e) {
    var r = e.target;
    return r.classList && (r.classList.contains("blk") || r.classList.contains("sg")) ? r : null;
  }
  document.addEventListener("mouseover", function (e) {
    var r = target(e);
    if (!r || panel.pinned) return;
    if (on) on.classList.remove("on");
    on = r;
    r.classList.add("on");
    showDetails(describe(r));
  });
  document.addEventListener("click", function (e) {
    var r = target(e);
    if (!r) return;
    if (on) on.classList.remove("on");
    on = r;
    r.classList.add("on");
    panel.pinned = null;
    showDetails(describe(r), true, r);
  });
}

/* cumulative sums: the page carries differences */
function cum(a) {
  var out = new Array(a.length), s = 0;
  for (var i = 0; i < a.length; i++) { s += a[i]; out[i] = s; }
  return out;
}
/* the last index with a[i] <= v, or -1 */
function floorIdx(a, v) {
  var lo = 0, hi = a.length - 1;
  if (hi < 0 || a[0] > v) return -1;
  while (lo < hi) {
    var mid = (lo + hi + 1) >> 1;
    if (a[mid] <= v) lo = mid; else hi = mid - 1;
  }
  return lo;
}

function initTimeline() {
  var svg = document.getElementById("timeline");
  if (!svg) return;
  var D = jsonOf("timeline-data"), NS = svg.namespaceURI;
  var tip = document.getElementById("tip"), guide = svg.querySelector("#guide");
  var plot = svg.querySelector("#plot"), ticks = svg.querySelector("#xticks");
  var L = D.l, W = D.w, PT = D.pt, PH = D.ph;
  D.levels.forEach(function (lv) {
    if (lv.live) lv.live.e = cum(lv.live.e);
    lv.pols.forEach(function (p) { p.e = cum(p.e); });
  });
  var T = D.time ? { e: cum(D.time.e), t: cum(D.time.t) } : null;
  var st = { view: [D.x0, D.x1], axis: "e", level: 0, drawn: 0 };

  function timeAt(ev) {
    var i = floorIdx(T.e, ev);
    if (i < 0) return T.t[0];
    if (i >= T.e.length - 1) return T.t[T.e.length - 1];
    var f = (ev - T.e[i]) / (T.e[i + 1] - T.e[i]);
    return T.t[i] + f * (T.t[i + 1] - T.t[i]);
  }
  function eventAtTime(t) {
    var i = floorIdx(T.t, t);
    if (i < 0) return T.e[0];
    if (i >= T.t.length - 1) return T.e[T.t.length - 1];
    var d = T.t[i + 1] - T.t[i], f = d > 0 ? (t - T.t[i]) / d : 0;
    return T.e[i] + f * (T.e[i + 1] - T.e[i]);
  }
  function X(ev) { return st.axis === "s" ? timeAt(ev) : ev; }
  function px(ev) {
    var a = X(st.view[0]), b = X(st.view[1]);
    return L + (b > a ? (X(ev) - a) / (b - a) * W : 0);
  }
  function evAt(x) {
    var f = (x - L) / W;
    if (st.axis === "s") {
      var a = X(st.view[0]), b = X(st.view[1]);
      return eventAtTime(a + f * (b - a));
    }
    return st.view[0] + f * (st.view[1] - st.view[0]);
  }
  function py(v) { return PT + PH - v / D.ymax * PH; }
  /* the indices of a series' points in view, one beyond each side */
  function span(e) {
    var i0 = Math.max(0, floorIdx(e, st.view[0])), i1 = floorIdx(e, st.view[1]);
    return [i0, Math.min(e.length - 1, i1 + 1)];
  }
  function seriesOf(lv) { return lv.live ? lv.live.e : (lv.pols.length ? lv.pols[0].e : []); }
  function inView(lv) { var s = span(seriesOf(lv)); return Math.max(0, s[1] - s[0] + 1); }
  /* the coarsest level with enough points in view to fill the width */
  function pickLevel() {
    for (var k = 0; k < D.levels.length; k++)
      if (inView(D.levels[k]) >= 400) return k;
    return D.levels.length - 1;
  }
  function node(name, attrs, title) {
    var n = document.createElementNS(NS, name);
    for (var a in attrs) n.setAttribute(a, attrs[a]);
    if (title) { var t = document.createElementNS(NS, "title"); t.textContent = title; n.appendChild(t); }
    return n;
  }
  function render() {
    var lv = D.levels[st.level = pickLevel()], parts = [], i, k, j, s, d;
    while (plot.firstChild) plot.removeChild(plot.firstChild);
    if (lv.live) {
      var e = lv.live.e, b = lv.live.b;
      s = span(e);
      st.drawn = s[1] - s[0] + 1;
      for (k = 0; k < b.length; k++) {
        d = [];
        for (i = s[0]; i <= s[1]; i++) {
          var top = 0;
          for (j = 0; j <= k; j++) top += b[j][i];
          d.push((d.length ? "L" : "M") + px(e[i]).toFixed(1) + " " + py(top).toFixed(1));
        }
        for (i = s[1]; i >= s[0]; i--) {
          var bot = 0;
          for (j = 0; j < k; j++) bot += b[j][i];
          d.push("L" + px(e[i]).toFixed(1) + " " + py(bot).toFixed(1));
        }
        plot.appendChild(node("path", { "class": "band", "data-band": k, fill: D.fills[k],
          stroke: "none", d: d.join(" ") + " Z" }, "live: " + D.sites[k]));
      }
    }
    lv.pols.forEach(function (p, n) {
      var meta = D.pols[n];
      ["r", "a"].forEach(function (key) {
        s = span(p.e);
        d = [];
        for (i = s[0]; i <= s[1]; i++)
          d.push((d.length ? "L" : "M") + px(p.e[i]).toFixed(1) + " " + py(p[key][i]).toFixed(1));
        var at = { "class": key === "r" ? "line" : "thin", stroke: meta.stroke, d: d.join(" ") };
        if (key === "a") at["stroke-dasharray"] = "1 3"; else if (meta.dash) at["stroke-dasharray"] = meta.dash;
        plot.appendChild(node("path", at, meta.name + (key === "r" ? ": reserved" : ": allocated")));
      });
      if (meta.oom)
        plot.appendChild(node("circle", { "class": "oompt", r: 5, cx: px(meta.oom[0]).toFixed(1),
          cy: py(meta.oom[1]).toFixed(1) }, meta.name + " runs out of memory at event " + meta.oom[0]));
    });
    ticks.querySelectorAll("text").forEach(function (t, i, all) {
      var ev = evAt(L + W * i / (all.length - 1));
      t.textContent = st.axis === "s" ? (timeAt(ev) / 1e6).toFixed(3) + " s" :
        String(tickLabel(ev, (st.view[1] - st.view[0]) / (all.length - 1)));
    });
    document.getElementById("xlabel").textContent = st.axis === "s" ? "seconds from the first event" : "event";
    var whole = st.view[0] <= D.x0 && st.view[1] >= D.x1;
    document.getElementById("zoomstate").textContent = whole ? "the whole trace" :
      "events " + Math.round(st.view[0]) + " to " + Math.round(st.view[1]) +
      " (level " + (st.level + 1) + " of " + D.levels.length + ")";
  }
  /* an event to two figures of the ticks' step, as report-timeline.c writes it */
  function tickLabel(ev, step) {
    var p = step >= 100 ? Math.pow(10, Math.floor(Math.log10(step)) - 1) : 1;
    return Math.round(Math.round(ev / p) * p);
  }
  function valueAt(e, v, ev) { var i = floorIdx(e, ev); return i < 0 ? null : v[i]; }
  function readout(ev, band) {
    var lv = D.levels[st.level], lines = ["event " + Math.round(ev) +
      (T ? " \u00b7 " + (timeAt(ev) / 1e6).toFixed(6) + " s" : "")], v;
    if (lv.live) {
      v = valueAt(lv.live.e, lv.live.v, ev);
      if (v !== null) lines.push("live: " + fmtSize(v));
      if (band !== null) {
        v = valueAt(lv.live.e, lv.live.b[band], ev);
        if (v !== null) lines.push("  of it " + D.sites[band] + ": " + fmtSize(v));
      }
    }
    lv.pols.forEach(function (p, n) {
      v = valueAt(p.e, p.r, ev);
      if (v !== null) lines.push(D.pols[n].name + " reserved: " + fmtSize(v));
    });
    return lines.join("\n");
  }
  function pt(e) {
    var p = svg.createSVGPoint();
    p.x = e.clientX; p.y = e.clientY;
    return p.matrixTransform(svg.getScreenCTM().inverse());
  }
  function bandOf(t) { return t && t.getAttribute && t.hasAttribute("data-band") ? +t.getAttribute("data-band") : null; }
  function bandText(k) {
    var lines = ["live: " + D.sites[k] + ", its largest stacks at the live peak:"];
    (D.bands[k] || []).forEach(function (b) {
      lines.push(fmtSize(b[1]) + (b[0] >= 0 ? "\n" + stackText(b[0]) : " (no stack recorded)"));
    });
    if (!(D.bands[k] || []).length) lines.push("  (none recorded)");
    return lines.join("\n");
  }
  /* the allocator's state the page carries nearest an event */
  function choose(ev) {
    var best = null, figs = document.querySelectorAll("figure.state");
    figs.forEach(function (f) {
      f.classList.remove("chosen");
      var d = Math.abs(+f.getAttribute("data-event") - ev);
      if (best === null || d < best.d) best = { f: f, d: d };
    });
    var text = "event " + Math.round(ev) + ": ";
    if (best === null) text += "this page carries no allocator state.";
    else {
      best.f.classList.add("chosen");
      text += "the nearest state the page carries is at event " + best.f.getAttribute("data-event") +
        " (" + best.f.querySelector("h3").textContent + ")";
    }
    text += "\nThe state at event " + Math.round(ev) + " itself: gpumemsim report ... --at=" + Math.round(ev);
    panel.pinned = null;
    showDetails(text);
    return best ? best.f : null;
  }
  var drag = null;
  svg.addEventListener("mousemove", function (e) {
    var p = pt(e);
    if (p.x < L || p.x > L + W) { tip.style.display = "none"; guide.setAttribute("visibility", "hidden"); return; }
    tip.textContent = readout(evAt(p.x), bandOf(e.target));
    tip.style.display = "block";
    tip.style.left = (e.pageX + 14) + "px";
    tip.style.top = (e.pageY + 10) + "px";
    guide.setAttribute("x1", p.x); guide.setAttribute("x2", p.x);
    guide.setAttribute("visibility", "visible");
  });
  svg.addEventListener("mouseleave", function () {
    tip.style.display = "none"; guide.setAttribute("visibility", "hidden");
  });
  svg.addEventListener("mousedown", function (e) { drag = pt(e).x; e.preventDefault(); });
  svg.addEventListener("mouseup", function (e) {
    var x = pt(e).x;
    if (drag !== null && Math.abs(x - drag) >= 3) {
      var a = evAt(Math.min(drag, x)), b = evAt(Math.max(drag, x));
      if (b - a >= 2) setView(a, b);
    } else if (drag !== null) {
      var k = bandOf(e.target);
      if (k !== null) { panel.pinned = null; showDetails(bandText(k), true, e.target); }
      else choose(evAt(x));
    }
    drag = null;
  });
  function setView(a, b) {
    st.view = [Math.max(D.x0, a), Math.min(D.x1, b)];
    render();
  }
  function reset() { st.view = [D.x0, D.x1]; render(); }
  svg.addEventListener("dblclick", reset);
  document.getElementById("zoomreset").addEventListener("click", reset);
  document.querySelectorAll("#axis input").forEach(function (r) {
    r.addEventListener("change", function () { if (r.checked) { st.axis = r.value; render(); } });
  });
  if (!T) document.getElementById("axis").hidden = true;
  document.querySelector("#timeline-fig .controls").hidden = false;
  render();
  gms.timeline = { data: D, state: st, setView: setView, reset: reset, readout: readout,
    choose: choose, bandText: bandText, hasTime: !!T, inView: function (k) { return inView(D.levels[k]); },
    setAxis: function (a) { st.axis = a; render(); } };
}

/* #selftest: the page checks itself; a headless browser reads the result. */
function selftest() {
  var out = [], n = 0, tl = gms.timeline;
  function ok(c, m) { n++; out.push((c ? "ok " : "not ok ") + n + " - " + m); }
  ok(document.querySelectorAll("[data-peak-reserved]").length > 0, "the policy table gives peak reserved in bytes");
  var blk = document.querySelector("svg.map rect.blk.a");
  ok(blk !== null, "a memory map has an allocated block");
  if (blk) {
    blk.dispatchEvent(new MouseEvent("mouseover", { bubbles: true }));
    ok(panel.el.textContent === describe(blk) && panel.el.textContent.indexOf(blk.querySelector("title").textContent) === 0,
       "hovering it shows its details: " + panel.el.textContent.split("\n")[0]);
  } else ok(false, "hovering a block");
  /* a block with a stack: hover shows its frames, a click keeps them */
  var sb = document.querySelector("svg.map rect.blk.a[data-s]");
  if (sb) {
    sb.dispatchEvent(new MouseEvent("click", { bubbles: true }));
    var other = document.querySelector("svg.map rect.blk.f");
    if (other) other.dispatchEvent(new MouseEvent("mouseover", { bubbles: true }));
    var lines = panel.el.textContent.split("\n"), at = lines.indexOf("allocated from (innermost first):");
    ok(at > 0 && lines.length > at + 1, "a click keeps a block's stack: " + (at > 0 ? lines.slice(at + 1).map(function (s) { return s.trim(); }).join(" | ") : "none"));
    sb.dispatchEvent(new MouseEvent("click", { bubbles: true }));
    panel.pinned = null;
  } else ok(true, "a click keeps a block's stack # SKIP no block with a stack");
  if (tl) {
    var svg = document.getElementById("timeline"), box = svg.getBoundingClientRect(), D = tl.data;
    var x = box.left + box.width * (D.l + D.w / 2) / svg.viewBox.baseVal.width;
    svg.dispatchEvent(new MouseEvent("mousemove", { bubbles: true, clientX: x, clientY: box.top + box.height / 2 }));
    ok(/^event \d+/.test(document.getElementById("tip").textContent), "the timeline reads out an event");
    /* zoom: a tenth of the trace around its middle, drawn from finer data */
    var before = tl.inView(0), mid = (D.x0 + D.x1) / 2, w = (D.x1 - D.x0) / 20;
    tl.setView(mid - w, mid + w);
    var coarse = tl.inView(0), fine = tl.state.drawn;
    ok(tl.state.level >= 0 && fine >= coarse, "zoomed to events " + Math.round(mid - w) + " to " +
       Math.round(mid + w) + ": level " + (tl.state.level + 1) + ", " + fine + " points where the coarsest level has " + coarse +
       " (of " + before + ")");
    tl.reset();
    if (tl.hasTime) {
      tl.setAxis("s");
      var t = document.querySelector("#xticks text:last-child").textContent;
      ok(/ s$/.test(t), "the axis in seconds ends at " + t);
      tl.setAxis("e");
    } else ok(true, "the axis in seconds # SKIP the trace has no times");
    var f = tl.choose(D.x1);
    ok(f === null || f.classList.contains("chosen"), "a click on the timeline finds the nearest state: " +
       (f ? f.getAttribute("data-event") : "none carried"));
  }
  /* the states the page carries at chosen events, for the test to compare with run --at */
  document.querySelectorAll("figure.state[data-moment=at]").forEach(function (f) {
    ok(true, "state " + f.getAttribute("data-policy-index") + " at event " + f.getAttribute("data-event") +
       ": live " + f.getAttribute("data-live") + " count " + f.getAttribute("data-count") +
       " reserved " + f.getAttribute("data-reserved") + " allocated " + f.getAttribute("data-allocated") +
       " largest_free " + f.getAttribute("data-largest-free") + " blocks " + f.querySelectorAll("rect.blk").length);
  });
  document.querySelectorAll("#diff tr[data-grew]").forEach(function (r, i) {
    if (i < 3) ok(true, "grew " + r.getAttribute("data-grew") + " " + r.querySelector("td").textContent);
  });
  ok(errs.length === 0, "no script errors" + (errs.length ? ": " + errs.join("; ") : ""));
  var el = document.getElementById("selftest");
  el.textContent = out.join("\n") + "\n1.." + n + "\n# ready " +
    Math.round(performance.now()) + " ms after the request\n";
  el.style.display = "block";
}

/* #demo: the state `make pictures` draws: zoomed around the live peak, the
   largest band's stacks kept. */
function demo() {
  var tl = gms.timeline, D = tl.data, fine = D.levels[D.levels.length - 1].live, i, at = 0;
  if (!fine) return;
  for (i = 1; i < fine.v.length; i++) if (fine.v[i] > fine.v[at]) at = i;
  var w = (D.x1 - D.x0) / 8;
  tl.setView(fine.e[at] - w, fine.e[at] + w);
  showDetails(tl.bandText(0), true, document.getElementById("timeline"));
  ["header", "#summary", "#policies"].forEach(function (q) {
    var el = document.querySelector(q);
    if (el) el.style.display = "none";
  });
}

document.addEventListener("DOMContentLoaded", function () {
  try { initDetails(); initTimeline(); } catch (e) { errs.push(String(e)); }
  if (location.hash === "#selftest") selftest();
  else if (location.hash === "#demo" && gms.timeline) demo();
});
