/* Occupancy calculator (glossary_tool/emit/occupancy.py writes the form and the GPUs' limits).
 *
 * The arithmetic follows the CUDA runtime's occupancy calculation (cuda_occupancy.h, CUDA 13.0)
 * for a kernel with no carveout preference that opted in to large dynamic shared memory; the
 * site's browser test replays every configuration the occupancy-oracle snippet printed on each
 * GPU and requires the same number of blocks. Device limits come from the GPU's own record;
 * only the allocation units below are per architecture, as the runtime's header has them.
 */
(function () {
  "use strict";

  /* Allocation units by compute capability major (cuda_occupancy.h). */
  function arch(major) {
    return {
      regUnit: 256, /* registers are granted per warp in units of 256 */
      smemUnit: major >= 8 ? 128 : 256, /* bytes */
      subPartitions: 4, /* the register file is split among the SM's four schedulers */
      maxRegsPerThread: major >= 7 ? 256 : 255,
    };
  }

  function roundUp(x, unit) {
    return Math.ceil(x / unit) * unit;
  }

  /* Blocks per SM for one configuration, with the limit each resource sets. */
  function compute(gpu, threads, regs, smem) {
    var L = gpu.limits;
    var a = arch(gpu.cc[0]);
    var warps = Math.ceil(threads / L.warpSize);
    var maxWarps = L.maxThreadsPerMultiProcessor / L.warpSize;
    var limits = {};
    limits.threads = threads > L.maxThreadsPerBlock || threads < 1 ? 0 : Math.floor(maxWarps / warps);
    limits.blocks = L.maxBlocksPerMultiProcessor;
    var regsPerWarp = roundUp(regs * L.warpSize, a.regUnit);
    if (regs > a.maxRegsPerThread || regsPerWarp * roundUp(warps, a.subPartitions) > L.regsPerBlock || regsPerWarp * warps > L.regsPerBlock) {
      limits.registers = 0;
    } else if (regsPerWarp === 0) {
      limits.registers = Infinity;
    } else {
      var warpsPerSubPartition = Math.floor(L.regsPerMultiprocessor / a.subPartitions / regsPerWarp);
      limits.registers = Math.floor((warpsPerSubPartition * a.subPartitions) / warps);
    }
    var smemPerBlock = roundUp(smem + L.reservedSharedMemPerBlock, a.smemUnit);
    if (smemPerBlock > L.sharedMemPerBlockOptin + L.reservedSharedMemPerBlock) {
      limits.sharedMemory = 0;
    } else {
      limits.sharedMemory = Math.floor(L.sharedMemPerMultiprocessor / smemPerBlock);
    }
    var blocks = Math.min(limits.threads, limits.blocks, limits.registers, limits.sharedMemory);
    var limiting = Object.keys(limits).filter(function (k) { return limits[k] === blocks; });
    return {
      blocks: blocks,
      warps: blocks * warps,
      occupancy: (blocks * warps) / maxWarps,
      limiting: limiting,
      limits: limits,
      registersPerWarp: regsPerWarp,
      sharedPerBlock: smemPerBlock,
    };
  }

  var NAMES = {
    threads: "block size",
    blocks: "block slots",
    registers: "registers",
    sharedMemory: "shared memory",
  };

  function describe(gpu, result, threads) {
    if (result.blocks === 0) {
      if (threads > gpu.limits.maxThreadsPerBlock) return "block size: at most " + gpu.limits.maxThreadsPerBlock + " threads per block";
      return result.limiting.map(function (k) { return NAMES[k]; }).join(", ") + ": the block cannot launch";
    }
    return result.limiting.map(function (k) {
      if (k === "threads") return "warp slots (" + gpu.limits.maxThreadsPerMultiProcessor / gpu.limits.warpSize + " per SM)";
      if (k === "blocks") return "block slots (" + gpu.limits.maxBlocksPerMultiProcessor + " per SM)";
      if (k === "registers") return "registers (" + result.registersPerWarp + " per warp of " + gpu.limits.regsPerMultiprocessor + ")";
      return "shared memory (" + result.sharedPerBlock + " B per block of " + gpu.limits.sharedMemPerMultiprocessor + ")";
    }).join(", ");
  }

  var SVG = "http://www.w3.org/2000/svg";

  function el(name, attrs, text) {
    var node = document.createElementNS(SVG, name);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /* Occupancy for block sizes 32, 64, ... 1024: one bar each, the chosen size marked. */
  function chart(box, gpu, threads, regs, smem) {
    var W = 640, H = 220, left = 44, bottom = 34, top = 10;
    var sizes = [];
    for (var t = gpu.limits.warpSize; t <= gpu.limits.maxThreadsPerBlock; t += gpu.limits.warpSize) sizes.push(t);
    var svg = el("svg", { viewBox: "0 0 " + W + " " + H, class: "gg-occupancy__plot", "aria-hidden": "true" });
    var plotW = W - left - 8, plotH = H - top - bottom, bar = plotW / sizes.length;
    [0, 0.25, 0.5, 0.75, 1].forEach(function (f) {
      var y = top + plotH * (1 - f);
      svg.appendChild(el("line", { x1: left, x2: W - 8, y1: y, y2: y, class: "gg-occupancy__grid" }));
      svg.appendChild(el("text", { x: left - 6, y: y + 4, "text-anchor": "end" }, Math.round(f * 100) + "%"));
    });
    var chosen = roundUp(threads, gpu.limits.warpSize);
    sizes.forEach(function (size, i) {
      var occ = compute(gpu, size, regs, smem).occupancy;
      var h = plotH * occ;
      var rect = el("rect", { x: left + i * bar + 1, y: top + plotH - h, width: Math.max(bar - 2, 1), height: h, class: size === chosen ? "gg-occupancy__bar gg-occupancy__bar--chosen" : "gg-occupancy__bar" });
      rect.appendChild(el("title", {}, size + " threads: " + Math.round(occ * 100) + "%"));
      svg.appendChild(rect);
      if (size % 128 === 0 || size === sizes[0]) svg.appendChild(el("text", { x: left + i * bar + bar / 2, y: H - bottom + 16, "text-anchor": "middle" }, String(size)));
    });
    svg.appendChild(el("text", { x: left + plotW / 2, y: H - 4, "text-anchor": "middle" }, "threads per block"));
    box.replaceChildren(svg);
  }

  function mount(root) {
    if (root.dataset.ggMounted) return;
    root.dataset.ggMounted = "1";
    var data = JSON.parse(root.querySelector(".gg-occupancy__data").textContent);
    var form = root.querySelector("form");
    var out = function (name) { return root.querySelector('output[name="' + name + '"]'); };
    function update() {
      var gpu = data.gpus[Number(form.elements.gpu.value) || 0];
      var threads = Math.round(Number(form.elements.threads.value));
      var regs = Math.round(Number(form.elements.regs.value));
      var smem = Math.round(Number(form.elements.smem.value));
      if (!(threads >= 1 && regs >= 1 && smem >= 0)) {
        out("blocks").value = "";
        out("limiter").value = "enter a block size of at least 1 thread, at least 1 register and 0 or more bytes";
        return;
      }
      var result = compute(gpu, threads, regs, smem);
      out("blocks").value = String(result.blocks);
      out("warps").value = result.warps + " of " + gpu.limits.maxThreadsPerMultiProcessor / gpu.limits.warpSize;
      out("occupancy").value = Math.round(result.occupancy * 1000) / 10 + " %";
      out("limiter").value = describe(gpu, result, threads);
      chart(root.querySelector(".gg-occupancy__svg"), gpu, threads, regs, smem);
    }
    form.addEventListener("input", update);
    form.addEventListener("change", update);
    update();
  }

  function mountAll() {
    document.querySelectorAll('[data-gg-widget="occupancy"]').forEach(mount);
  }

  window.ggOccupancy = { compute: compute };
  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(mountAll); /* Material's instant navigation swaps pages in place */
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", mountAll);
  } else {
    mountAll();
  }
})();
