import Foundation

struct BenchmarkArguments {
  var quick = false
  var only: String?
  var iterations: Int?
  /// Where to write the JSON report: a path, or `-` for standard output.
  var json: String?
  /// A JSON report of an earlier run, to compare this run with.
  var compare: String?

  init(_ arguments: ArraySlice<String>) {
    var arguments = arguments[...]
    while let argument = arguments.popFirst() {
      switch argument {
      case "--quick": quick = true
      case "--only": only = arguments.popFirst()
      case "--iterations": iterations = arguments.popFirst().flatMap { Int($0) }
      case "--json":
        // The file is optional: without one (or with `-`), the JSON goes to standard output.
        if let next = arguments.first, !next.hasPrefix("--") {
          json = arguments.popFirst()
        } else {
          json = "-"
        }
      case "--compare":
        guard let path = arguments.popFirst() else { Self.fail("--compare needs a file") }
        compare = path
      case "--help", "-h":
        print(
          """
          usage: unidirectional-benchmarks [--quick] [--only PREFIX[,PREFIX...]] [--iterations N]
                                           [--json [FILE]] [--compare BASELINE.json]
          """)
        exit(0)
      default:
        Self.fail("unknown argument: \(argument)")
      }
    }
  }

  static func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("\(message)\n".utf8))
    exit(2)
  }

  /// The JSON report goes to standard output: the lines for people go to standard error.
  var jsonOnStandardOutput: Bool { json == "-" }

  /// Whether `--only` selects the scenario: it takes a prefix, or several separated by commas
  /// (`--only B1,C0`).
  func selects(_ name: String) -> Bool {
    only.map { $0.split(separator: ",").contains { name.hasPrefix($0) } } ?? true
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
    guard let judgement = judgement(for: nanoseconds, results: results) else { return "" }
    let met = judgement.met ? "ok" : "MISSED"
    switch self {
    case .ratio(let base, let atMost):
      return String(format: "%.2fx %@ (target <= %.2fx) %@", judgement.value, base, atMost, met)
    case .perObserverRun(_, let atMost):
      return String(
        format: "%.1f ns per observer run (target <= %.0f) %@", judgement.value, atMost, met)
    case .perRecordedRead(_, let atMost):
      return String(
        format: "%.1f ns per recorded read (target <= %.0f) %@", judgement.value, atMost, met)
    case .absolute(let atMost):
      return String(format: "(target <= %.0f ns) %@", atMost, met)
    }
  }

  /// What the target compares, for the JSON report; `nil` if the baseline was not measured in
  /// this run.
  func judgement(for nanoseconds: Double, results: [String: Double]) -> Report.Judgement? {
    switch self {
    case .ratio(let base, let atMost):
      guard let baseline = results[base] else { return nil }
      let ratio = nanoseconds / baseline
      return .init(measure: "x \(base)", value: ratio, atMost: atMost, met: ratio <= atMost)
    case .perObserverRun(let observers, let atMost):
      let perRun = nanoseconds / Double(observers)
      return .init(
        measure: "ns per observer run", value: perRun, atMost: atMost, met: perRun <= atMost)
    case .perRecordedRead(let reads, let atMost):
      let perRead = nanoseconds / Double(reads)
      return .init(
        measure: "ns per recorded read", value: perRead, atMost: atMost, met: perRead <= atMost)
    case .absolute(let atMost):
      return .init(
        measure: "ns", value: nanoseconds, atMost: atMost, met: nanoseconds <= atMost)
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
