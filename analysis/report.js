/* report.js - the script of `gpumemsim report`, inlined in every page.  The
   page is whole without it (tables, pictures, each block's details in its
   <title>); this adds the details panel on hover, the timeline's read-out
   and zoom, and a self-test run when the page is opened with #selftest. */
"use strict";
var errs = [];
window.addEventListener("error", function (e) { errs.push(String(e.message)); });

function fmtSize(n) {
  var u = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"], i = 0;
  if (n < 1024) return n + " B";
  while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
  return n.toFixed(2) + " " + u[i];
}

/* The memory maps: a block's details in the panel above them. */
function initMaps() {
  var panel = document.getElementById("details"), on = null;
  document.querySelectorAll("svg.map").forEach(function (svg) {
    svg.addEventListener("mouseover", function (e) {
      var r = e.target;
      if (!r.classList || !r.classList.contains("blk")) return;
      if (on) on.classList.remove("on");
      on = r;
      r.classList.add("on");
      var t = r.querySelector("title");
      panel.textContent = t ? t.textContent : "";
    });
  });
}

/* The timeline: the values under the pointer, and a dragged range zoomed. */
function initTimeline() {
  var svg = document.getElementById("timeline"), data, tip, guide, plot, ticks;
  if (!svg) return;
  data = JSON.parse(document.getElementById("timeline-data").textContent);
  tip = document.getElementById("tip");
  guide = svg.querySelector("#guide");
  plot = svg.querySelector("#plot");
  ticks = svg.querySelector("#xticks");
  var L = data.l, W = data.w, view = [data.x0, data.x1], drag = null;

  function pt(e) {
    var p = svg.createSVGPoint();
    p.x = e.clientX; p.y = e.clientY;
    return p.matrixTransform(svg.getScreenCTM().inverse());
  }
  function eventAt(x) {
    return view[0] + (x - L) / W * (view[1] - view[0]);
  }
  function nearest(pts, ev) {
    var lo = 0, hi = pts.length - 1;
    if (hi < 0) return null;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (pts[mid][0] <= ev) lo = mid; else hi = mid - 1;
    }
    return pts[lo];
  }
  function show(e) {
    var p = pt(e), ev, lines, i;
    if (p.x < L || p.x > L + W) { tip.style.display = "none"; guide.setAttribute("visibility", "hidden"); return; }
    ev = eventAt(p.x);
    lines = ["event " + Math.round(ev)];
    for (i = 0; i < data.series.length; i++) {
      var q = nearest(data.series[i].p, ev);
      if (q) lines.push(data.series[i].name + ": " + fmtSize(q[1]));
    }
    tip.textContent = lines.join("\n");
    tip.style.display = "block";
    tip.style.left = (e.pageX + 14) + "px";
    tip.style.top = (e.pageY + 10) + "px";
    guide.setAttribute("x1", p.x); guide.setAttribute("x2", p.x);
    guide.setAttribute("visibility", "visible");
  }
  function apply() {
    var k = (data.x1 - data.x0) / (view[1] - view[0]);
    var tx = L - (L + (view[0] - data.x0) / (data.x1 - data.x0) * W) * k;
    plot.setAttribute("transform", "matrix(" + k + " 0 0 1 " + tx + " 0)");
    ticks.querySelectorAll("text").forEach(function (t, i, all) {
      var f = all.length > 1 ? i / (all.length - 1) : 0;
      t.textContent = Math.round(view[0] + f * (view[1] - view[0]));
    });
    document.getElementById("zoomstate").textContent = k > 1 ?
      "events " + Math.round(view[0]) + " to " + Math.round(view[1]) : "the whole trace";
  }
  svg.addEventListener("mousemove", show);
  svg.addEventListener("mouseleave", function () {
    tip.style.display = "none"; guide.setAttribute("visibility", "hidden");
  });
  svg.addEventListener("mousedown", function (e) { drag = eventAt(pt(e).x); e.preventDefault(); });
  svg.addEventListener("mouseup", function (e) {
    var end = eventAt(pt(e).x), a = Math.min(drag, end), b = Math.max(drag, end);
    if (drag !== null && b - a >= 2) {
      view = [Math.max(data.x0, a), Math.min(data.x1, b)];
      apply();
    }
    drag = null;
  });
  svg.addEventListener("dblclick", function () { view = [data.x0, data.x1]; apply(); });
  document.getElementById("zoomreset").addEventListener("click", function () {
    view = [data.x0, data.x1]; apply();
  });
  document.querySelector("#timeline-fig .controls").hidden = false;
  apply();
}

/* #selftest: the page checks itself; a headless browser reads the result. */
function selftest() {
  var out = [], n = 0;
  function ok(c, m) { n++; out.push((c ? "ok " : "not ok ") + n + " - " + m); }
  var pr = document.querySelectorAll("[data-peak-reserved]");
  ok(pr.length > 0, "the policy table gives peak reserved in bytes");
  var blk = document.querySelector("svg.map rect.blk.a");
  ok(blk !== null, "a memory map has an allocated block");
  if (blk) {
    blk.dispatchEvent(new MouseEvent("mouseover", { bubbles: true }));
    var d = document.getElementById("details").textContent;
    ok(d.length > 0 && d === blk.querySelector("title").textContent,
       "hovering it shows its details: " + d);
  }
  var svg = document.getElementById("timeline");
  if (svg) {
    var box = svg.getBoundingClientRect(), data = JSON.parse(document.getElementById("timeline-data").textContent);
    var x = box.left + box.width * (data.l + data.w / 2) / svg.viewBox.baseVal.width;
    svg.dispatchEvent(new MouseEvent("mousemove", { bubbles: true, clientX: x, clientY: box.top + box.height / 2 }));
    ok(/^event \d+/.test(document.getElementById("tip").textContent), "the timeline reads out an event");
  }
  ok(errs.length === 0, "no script errors" + (errs.length ? ": " + errs.join("; ") : ""));
  var el = document.getElementById("selftest");
  el.textContent = out.join("\n") + "\n1.." + n + "\n# ready " +
    Math.round(performance.now()) + " ms after the request\n";
  el.style.display = "block";
}

document.addEventListener("DOMContentLoaded", function () {
  try { initMaps(); initTimeline(); } catch (e) { errs.push(String(e)); }
  if (location.hash === "#selftest") selftest();
});
