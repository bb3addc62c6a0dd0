// Times ONNX Runtime (onnxruntime-node, CPU, the package onnx-run installs)
// on the inference benchmark's ONNX files: one row and 1024 rows, each case
// repeated, the repetitions interleaved across cases as bench_nn's are.
//
//   NODE_PATH=<onnx-run cache>/node_modules node ort_inference.js DIR REPS MIN_TIME_S THREADS
//
// Prints one JSON object: {"<file>/<rows>": [seconds per call, per repetition], ...}.
// ONNX Runtime's intra-op threads are set to THREADS (1 to compare with one
// Camber thread). Inputs: uniform in [-1, 1], the same for every call.
const ort = require('onnxruntime-node');
const fs = require('fs');
const path = require('path');
const [dir, repsArg, minTimeArg, threadsArg] = process.argv.slice(2);
const reps = parseInt(repsArg || '7'), minTime = parseFloat(minTimeArg || '0.3');
const threads = parseInt(threadsArg || '1');
(async () => {
  const cases = [];
  for (const file of fs.readdirSync(dir).filter(f => f.endsWith('.onnx')).sort()) {
    const session = await ort.InferenceSession.create(path.join(dir, file), {
      intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential',
      graphOptimizationLevel: 'all'});
    const f64 = file.includes('float64');  // int8 (QDQ) models take float32
    for (const rows of [1, 1024]) {
      const data = (f64 ? Float64Array : Float32Array).from({length: rows * 16}, (_, i) => Math.sin(i) );
      const feeds = {inputs: new ort.Tensor(f64 ? 'float64' : 'float32', data, [rows, 16])};
      for (let w = 0; w < 20; ++w) await session.run(feeds);  // warm-up
      cases.push({name: `${file.replace('.onnx', '')}/${rows}`, session, feeds, times: []});
    }
  }
  for (let r = 0; r < reps; ++r) {
    for (const c of cases.sort(() => Math.random() - 0.5)) {
      let n = 0;
      const t0 = process.hrtime.bigint();
      let t = 0;
      do {
        await c.session.run(c.feeds);
        ++n;
        t = Number(process.hrtime.bigint() - t0) * 1e-9;
      } while (t < minTime);
      c.times.push(t / n);
    }
  }
  const out = {};
  for (const c of cases) out[c.name] = c.times;
  console.log(JSON.stringify(out));
})();
