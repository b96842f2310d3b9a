// Prints one line per scenario, in nanoseconds per action, with the baselines the targets are
// ratios of, all measured in this run. Run with:
//
//   swift run -c release unidirectional-benchmarks [--quick] [--only NAME] [--iterations N]
//
// Each figure is the best of several rounds (the machine is shared and noisy; the minimum is
// the most repeatable estimate of the cost itself).

import Foundation

let arguments = BenchmarkArguments(CommandLine.arguments.dropFirst())
var results: [String: Double] = [:]

for scenario in makeScenarios() + makeCompositionScenarios() + makeTestStoreScenarios()
where arguments.selects(scenario.name) {
  let nanoseconds = scenario.measure(arguments)
  results[scenario.name] = nanoseconds
  let name = scenario.name.padding(toLength: 50, withPad: " ", startingAt: 0)
  let figure = String(format: "%10.1f ns/action", nanoseconds)
  let verdict = scenario.target?.verdict(for: nanoseconds, results: results) ?? ""
  print("\(name)\(figure)\(verdict.isEmpty ? "" : "  " + verdict)")
}
