// Prints one line per scenario, in nanoseconds per action, with the baselines the targets are
// ratios of, all measured in this run. Run with:
//
//   swift run -c release unidirectional-benchmarks [--quick] [--only NAME] [--iterations N]
//
// B: observation at the core; D: precise reads of rows at the root, and reads outside observers;
// C: composition; T: the test store; R and M: threads and memory.
//
// Each figure is the best of several rounds (the machine is shared and noisy; the minimum is
// the most repeatable estimate of the cost itself).

import Foundation

let arguments = BenchmarkArguments(CommandLine.arguments.dropFirst())
var results: [String: Double] = [:]

for scenario in makeScenarios() + makeObservationScenarios() + makeCompositionScenarios()
  + makeRoutingScenarios() + makeNavigationScenarios()
  + makeTestStoreScenarios() + makeReliabilityScenarios()
where arguments.selects(scenario.name) {
  let nanoseconds = scenario.measure(arguments)
  results[scenario.name] = nanoseconds
  let name = scenario.name.padding(toLength: 50, withPad: " ", startingAt: 0)
  let figure = String(format: "%10.1f ns/action", nanoseconds)
  let verdict = scenario.target?.verdict(for: nanoseconds, results: results) ?? ""
  print("\(name)\(figure)\(verdict.isEmpty ? "" : "  " + verdict)")
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
  print(
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
  print(
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
  let name = "M2 resident memory over \(actions) effect actions".padding(
    toLength: 50, withPad: " ", startingAt: 0)
  print(
    name
      + String(format: "%10.1f KiB growth", Double(growth) / 1024)
      + "  (\(mebibytes(figures.first!.bytes)) after \(figures.first!.actions), "
      + "\(mebibytes(figures.last!.bytes)) after \(figures.last!.actions); "
      + "target: flat, <= 1 MiB growth) \(verdict)")
  print(
    "   samples (actions: MiB): "
      + figures.map { "\($0.actions): \(mebibytes($0.bytes))" }.joined(separator: ", "))
}
