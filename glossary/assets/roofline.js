/* Interactive roofline (glossary_tool/emit/roofline.py writes the form and each GPU's measurements).
 * Attainable FP32 rate = min(DRAM bandwidth x intensity, FP32 peak), with the bandwidth and
 * peak each GPU printed in the roofline-sweep snippet; its measured kernels are the dots.
 */
(function () {
  "use strict";

  var SVG = "http://www.w3.org/2000/svg";

  function attainable(gpu, intensity) {
    return Math.min(gpu.bandwidth * intensity, gpu.peak);
  }

  function el(name, attrs, text) {
    var node = document.createElementNS(SVG, name);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function fmt(x) {
    return Math.round(x).toLocaleString("en-US");
  }

  function draw(box, gpus, intensity) {
    var W = 640, H = 340, left = 64, right = 12, top = 12, bottom = 40;
    var xMin = 1 / 16, xMax = 256;
    var peak = Math.max.apply(null, gpus.map(function (g) { return g.peak; }));
    var yMax = Math.pow(10, Math.ceil(Math.log10(peak * 1.2))), yMin = yMax / 1e4;
    var x = function (v) { return left + (Math.log(v / xMin) / Math.log(xMax / xMin)) * (W - left - right); };
    var y = function (v) { return top + (1 - Math.log(v / yMin) / Math.log(yMax / yMin)) * (H - top - bottom); };
    var svg = el("svg", { viewBox: "0 0 " + W + " " + H, class: "gg-roofline__plot", "aria-hidden": "true" });
    for (var v = xMin; v <= xMax; v *= 4) {
      svg.appendChild(el("line", { x1: x(v), x2: x(v), y1: top, y2: H - bottom, class: "gg-roofline__grid" }));
      svg.appendChild(el("text", { x: x(v), y: H - bottom + 16, "text-anchor": "middle" }, v < 1 ? "1/" + Math.round(1 / v) : String(v)));
    }
    for (var u = yMin; u <= yMax; u *= 10) {
      svg.appendChild(el("line", { x1: left, x2: W - right, y1: y(u), y2: y(u), class: "gg-roofline__grid" }));
      svg.appendChild(el("text", { x: left - 6, y: y(u) + 4, "text-anchor": "end" }, u >= 1000 ? u / 1000 + "T" : String(u) + "G"));
    }
    svg.appendChild(el("text", { x: left + (W - left - right) / 2, y: H - 6, "text-anchor": "middle" }, "FLOP per DRAM byte"));
    svg.appendChild(el("text", { x: 14, y: top + (H - top - bottom) / 2, "text-anchor": "middle", transform: "rotate(-90 14 " + (top + (H - top - bottom) / 2) + ")" }, "FLOP/s (FP32)"));
    gpus.forEach(function (gpu, i) {
      var ridge = gpu.peak / gpu.bandwidth;
      var path = "M" + x(xMin) + "," + y(attainable(gpu, xMin)) + " L" + x(ridge) + "," + y(gpu.peak) + " L" + x(xMax) + "," + y(gpu.peak);
      svg.appendChild(el("path", { d: path, class: "gg-roofline__roof gg-roofline__series-" + i }));
      gpu.points.forEach(function (p) {
        var dot = el("circle", { cx: x(p[0]), cy: y(p[1]), r: 5, class: "gg-roofline__point gg-roofline__series-" + i, "data-intensity": p[0], "data-measured": p[1] });
        dot.appendChild(el("title", {}, gpu.name + ": " + p[0] + " FLOP/B, " + fmt(p[1]) + " GFLOP/s measured (roof " + fmt(p[2]) + ")"));
        svg.appendChild(dot);
      });
      svg.appendChild(el("text", { x: W - right - 4, y: y(gpu.peak) - 6 - i * 14, "text-anchor": "end", class: "gg-roofline__label gg-roofline__series-" + i }, gpu.name));
    });
    if (intensity > 0) {
      var xi = x(Math.min(Math.max(intensity, xMin), xMax));
      svg.appendChild(el("line", { x1: xi, x2: xi, y1: top, y2: H - bottom, class: "gg-roofline__marker" }));
    }
    box.replaceChildren(svg);
  }

  function mount(root) {
    if (root.dataset.ggMounted) return;
    root.dataset.ggMounted = "1";
    var data = JSON.parse(root.querySelector(".gg-roofline__data").textContent);
    var form = root.querySelector("form");
    function update() {
      var flops = Number(form.elements.flops.value), bytes = Number(form.elements.bytes.value);
      var intensity = bytes > 0 && flops >= 0 ? flops / bytes : NaN;
      form.elements.intensity.value = isFinite(intensity) ? String(Math.round(intensity * 1000) / 1000) : "(enter FLOPs ≥ 0 and bytes > 0)";
      data.gpus.forEach(function (gpu, i) {
        var a = root.querySelector('output[name="attainable-' + i + '"]');
        var b = root.querySelector('output[name="bound-' + i + '"]');
        if (!isFinite(intensity)) { a.value = ""; b.value = ""; return; }
        a.value = fmt(attainable(gpu, intensity)) + " GFLOP/s";
        b.value = gpu.bandwidth * intensity < gpu.peak ? "memory: " + fmt(gpu.bandwidth) + " GB/s × " + Math.round(intensity * 1000) / 1000 + " FLOP/B" : "compute: the " + fmt(gpu.peak) + " GFLOP/s FP32 peak";
      });
      draw(root.querySelector(".gg-roofline__svg"), data.gpus, intensity);
    }
    form.addEventListener("input", update);
    update();
  }

  window.ggRoofline = { attainable: attainable };
  function mountAll() {
    document.querySelectorAll('[data-gg-widget="roofline"]').forEach(mount);
  }
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(mountAll);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", mountAll);
  } else {
    mountAll();
  }
})();
