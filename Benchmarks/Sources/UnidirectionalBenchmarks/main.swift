// Prints one line per scenario, in nanoseconds per action, with the baselines the targets are
// ratios of, all measured in this run. Run with:
//
//   swift run -c release unidirectional-benchmarks [--quick] [--only NAME] [--iterations N]
//                                                  [--passes K] [--json [FILE]]
//                                                  [--compare BASELINE.json]
//
// `--json` writes every figure and every target's ratio as JSON (to FILE, or to standard output,
// the lines for people then going to standard error); `--compare` prints each figure's and
// ratio's change from an earlier `--json` file. See Benchmarks/README.md.
//
// B: observation at the core; D: precise reads of rows at the root, and reads outside observers;
// C: composition; T: the test store; R and M: threads and memory.
//
// Each figure is the best of several rounds (the machine is shared and noisy; the minimum is
// the most repeatable estimate of the cost itself). `--passes K` measures every selected
// scenario K times over, in turn, and prints the median of the passes, each ratio judged
// within its pass: use it to judge a target.

import Foundation

let arguments = BenchmarkArguments(CommandLine.arguments.dropFirst())
var report = Report(
  quick: arguments.quick, iterations: arguments.iterations, passes: arguments.passes)
// Read before measuring: a wrong path should not cost a run.
let baseline = arguments.compare.map { path -> Report in
  do {
    return try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
  } catch {
    BenchmarkArguments.fail("cannot read the baseline \(path): \(error)")
  }
}

/// Prints a line for people: on standard error when the JSON report takes standard output.
func show(_ line: String) {
  if arguments.jsonOnStandardOutput {
    FileHandle.standardError.write(Data((line + "\n").utf8))
  } else {
    print(line)
  }
}

let scenarios =
  (makeScenarios() + makeObservationScenarios() + makeCompositionScenarios()
  + makeRoutingScenarios() + makeNavigationScenarios()
  + makeTestStoreScenarios() + makeEffectScenarios() + makeReliabilityScenarios()
  + makeSharedScenarios())
  .filter { arguments.selects($0.name) }

// One pass prints each line as it is measured; several print the medians once all have run.
var passes: [[String: Double]] = []
for pass in 1...arguments.passes {
  var results: [String: Double] = [:]
  let start = ContinuousClock.now
  for scenario in scenarios {
    results[scenario.name] = scenario.measure(arguments)
    if arguments.passes == 1 {
      let summary = Summary(scenario, passes: [results])
      show(summary.line)
      report.figures.append(summary.reportFigure)
    }
  }
  passes.append(results)
  if arguments.passes > 1 {
    let elapsed = start.duration(to: .now).components
    let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    show(String(format: "pass %d of %d done in %.1f s", pass, arguments.passes, seconds))
  }
}
if arguments.passes > 1 {
  for scenario in scenarios {
    let summary = Summary(scenario, passes: passes)
    show(summary.line)
    report.figures.append(summary.reportFigure)
  }
}

if arguments.selects("D4") {
  // Reads outside any observer leave nothing behind: a send costs what it did before 100,000
  // distinct such reads, and they leave no memory behind.
  let figures = outsideReadsFigures(
    reads: arguments.quick ? 10_000 : 100_000, sends: arguments.quick ? 100_000 : 1_000_000)
  let ratio = figures.sendAfter / figures.sendBefore
  let growth = Double(figures.bytesAfter - figures.bytesBefore) / 1024
  let name = "D4 send after 100,000 outside reads".padding(
    toLength: 50, withPad: " ", startingAt: 0)
  let verdict = ratio <= 1.2 && growth <= 1024 ? "ok" : "MISSED"
  report.figures.append(
    .init(
      name: "D4 send after 100,000 outside reads", value: figures.sendAfter, unit: "ns/action",
      target: .init(measure: "x before the reads", value: ratio, atMost: 1.2, met: ratio <= 1.2)))
  report.figures.append(
    .init(
      name: "D4 resident growth after 100,000 outside reads", value: growth, unit: "KiB",
      target: .init(measure: "KiB", value: growth, atMost: 1024, met: growth <= 1024)))
  show(
    name
      + String(
        format:
          "%10.1f ns/action  %.2fx before the reads (%.1f ns; target <= 1.2x), %.0f KiB resident growth (target: flat) %@",
        figures.sendAfter, ratio, figures.sendBefore, growth, verdict))
}

if arguments.selects("M1") {
  // Resident-memory growth per observer registered on a value that never changes (its token,
  // closure and record included).
  let bytes = idleObserverBytes(count: arguments.quick ? 20_000 : 200_000)
  let name = "M1 bytes per idle observer (resident)".padding(
    toLength: 50, withPad: " ", startingAt: 0)
  // A quick run is too small to judge: pages freed by earlier scenarios absorb the growth.
  let verdict = arguments.quick ? "(quick run: not judged)" : bytes <= 256 ? "ok" : "MISSED"
  report.figures.append(
    .init(
      name: "M1 bytes per idle observer (resident)", value: bytes, unit: "bytes",
      target: arguments.quick
        ? nil : .init(measure: "bytes", value: bytes, atMost: 256, met: bytes <= 256)))
  show(
    name
      + String(
        format: "%10.1f bytes     (target <= 256, resident growth / observers) %@", bytes, verdict))
}

if arguments.selects("M2") {
  // Resident memory must stay flat while effects start and finish: the growth from the first
  // sample (after a tenth of the actions, when allocator pools are warm) to the last.
  let actions = arguments.iterations ?? (arguments.quick ? 1_000_000 : 10_000_000)
  let figures = residentBytesOverEffects(actions: actions, samples: 10)
  let mebibytes = { (bytes: Int) in String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
  let growth = figures.last!.bytes - figures.first!.bytes
  // A quick run is too short to judge: a one-time step of a megabyte or two (a worker arena's
  // high-water mark; see `residentBytesOverEffects`) weighs too much against a million actions.
  let verdict =
    arguments.quick ? "(quick run: not judged)" : growth <= 1_048_576 ? "ok" : "MISSED"
  let title = "M2 resident memory over \(actions) effect actions"
  let kibibytes = Double(growth) / 1024
  report.figures.append(
    .init(
      name: title, value: kibibytes, unit: "KiB",
      target: arguments.quick
        ? nil : .init(measure: "KiB", value: kibibytes, atMost: 1024, met: growth <= 1_048_576)))
  let name = title.padding(toLength: 50, withPad: " ", startingAt: 0)
  show(
    name
      + String(format: "%10.1f KiB growth", Double(growth) / 1024)
      + "  (\(mebibytes(figures.first!.bytes)) after \(figures.first!.actions), "
      + "\(mebibytes(figures.last!.bytes)) after \(figures.last!.actions); "
      + "target: flat, <= 1 MiB growth) \(verdict)")
  show(
    "   samples (actions: MiB): "
      + figures.map { "\($0.actions): \(mebibytes($0.bytes))" }.joined(separator: ", "))
}

if let path = arguments.json {
  let json = report.json()
  if path == "-" {
    FileHandle.standardOutput.write(json)
  } else if !FileManager.default.createFile(atPath: path, contents: json) {
    BenchmarkArguments.fail("cannot write \(path)")
  }
}

if let baseline {
  for line in report.comparison(with: baseline) { show(line) }
}
