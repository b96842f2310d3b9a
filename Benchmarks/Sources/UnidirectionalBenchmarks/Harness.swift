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

/// What a scenario's figure is held to.
enum Target {
  /// At most `atMost` times the figure of the scenario named `over`, measured in the same run.
  case ratio(over: String, atMost: Double)
  /// Each action runs `observers` observers: at most this many nanoseconds per observer run.
  case perObserverRun(observers: Int, atMostNanoseconds: Double)
  /// Each action re-checks `reads` recorded reads: at most this many nanoseconds per read.
  case perRecordedRead(reads: Int, atMostNanoseconds: Double)
  /// At most this many nanoseconds per action.
  case absolute(atMostNanoseconds: Double)

  /// The figure's ratio or share, the target, and whether it is met; empty if the baseline was
  /// not measured in this run.
  func verdict(for nanoseconds: Double, results: [String: Double]) -> String {
    switch self {
    case .ratio(let base, let atMost):
      guard let baseline = results[base] else { return "" }
      let ratio = nanoseconds / baseline
      let met = ratio <= atMost ? "ok" : "MISSED"
      return String(format: "%.2fx %@ (target <= %.2fx) %@", ratio, base, atMost, met)
    case .perObserverRun(let observers, let atMost):
      let perRun = nanoseconds / Double(observers)
      let met = perRun <= atMost ? "ok" : "MISSED"
      return String(format: "%.1f ns per observer run (target <= %.0f) %@", perRun, atMost, met)
    case .perRecordedRead(let reads, let atMost):
      let perRead = nanoseconds / Double(reads)
      let met = perRead <= atMost ? "ok" : "MISSED"
      return String(format: "%.1f ns per recorded read (target <= %.0f) %@", perRead, atMost, met)
    case .absolute(let atMost):
      let met = nanoseconds <= atMost ? "ok" : "MISSED"
      return String(format: "(target <= %.0f ns) %@", atMost, met)
    }
  }
}

struct Scenario {
  let name: String
  /// Actions per round at full size.
  let actions: Int
  var target: Target? = nil
  /// Runs `iterations` actions once. Setup must be done before returning the closure.
  let make: () -> (Int) -> Void

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
