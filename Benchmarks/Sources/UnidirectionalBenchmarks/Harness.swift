import Foundation

struct BenchmarkArguments {
  var quick = false
  var only: String?
  var iterations: Int?

  init(_ arguments: ArraySlice<String>) {
    var arguments = arguments[...]
    while let argument = arguments.popFirst() {
      switch argument {
      case "--quick": quick = true
      case "--only": only = arguments.popFirst()
      case "--iterations": iterations = arguments.popFirst().flatMap { Int($0) }
      case "--help", "-h":
        print("usage: unidirectional-benchmarks [--quick] [--only NAME-PREFIX] [--iterations N]")
        exit(0)
      default:
        FileHandle.standardError.write(Data("unknown argument: \(argument)\n".utf8))
        exit(2)
      }
    }
  }

  func selects(_ name: String) -> Bool {
    only.map { name.hasPrefix($0) } ?? true
  }

  /// Rounds to take the best of.
  var rounds: Int { iterations != nil ? 1 : (quick ? 2 : 5) }
}

struct Scenario {
  let name: String
  /// Actions per round at full size.
  let actions: Int
  /// Runs `iterations` actions once. Setup must be done before returning the closure.
  let make: () -> (Int) -> Void
  var verdict: (() -> String)?

  func measure(_ arguments: BenchmarkArguments) -> Double {
    let iterations = arguments.iterations ?? (arguments.quick ? max(actions / 10, 1) : actions)
    var best = Double.infinity
    for _ in 0..<arguments.rounds {
      let run = make()
      run(min(iterations, 1_000))  // Warm up.
      let start = DispatchTime.now().uptimeNanoseconds
      run(iterations)
      let elapsed = DispatchTime.now().uptimeNanoseconds - start
      best = min(best, Double(elapsed) / Double(iterations))
    }
    return best
  }
}

/// Keeps a value alive and opaque to the optimizer.
@inline(never)
func blackHole<T>(_ value: T) {
  withExtendedLifetime(value) {}
}

/// Formats `name`'s figure as a ratio of `base`'s, with the target and whether it is met.
func ratio(
  _ results: [String: Double], _ name: String, over base: String, target: Double, _ label: String
) -> String {
  guard let value = results[name], let baseline = results[base] else { return "" }
  let ratio = value / baseline
  let verdict = ratio <= target ? "ok" : "MISSED"
  return String(format: "%.2fx %@ (target <= %.2fx) %@", ratio, label, target, verdict)
}

