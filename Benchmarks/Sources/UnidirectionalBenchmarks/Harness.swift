import Foundation

struct BenchmarkArguments {
  var quick = false
  var only: String?
  var iterations: Int?
  /// How many times to measure every selected scenario, in passes over all of them: each figure
  /// and each ratio is then the median over the passes (see `Summary`).
  var passes = 1
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
      case "--passes":
        guard let count = arguments.popFirst().flatMap({ Int($0) }), count >= 1 else {
          Self.fail("--passes needs a count of at least 1")
        }
        passes = count
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
                                           [--passes K] [--json [FILE]] [--compare BASELINE.json]
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

  /// The judgement's ratio or share, the target, and whether it is met, for people.
  func verdict(_ judgement: Report.Judgement) -> String {
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

/// A scenario's figures over the passes of a run (`--passes`): the median figure, and the
/// median of the target's judgements, each judged within its own pass.
///
/// A ratio's two figures come from the same pass, so a slow stretch of the machine that lasts
/// a pass moves both; the median then ignores a pass in which one of them was unlucky. A single
/// pass is the figure itself.
struct Summary {
  let scenario: Scenario
  /// The scenario's figure in each pass that measured it.
  let figures: [Double]
  /// The target's judgement in each pass that also measured its baseline.
  let judgements: [Report.Judgement]

  /// Collects `scenario`'s figures from `passes`, each a scenario's figure by name.
  init(_ scenario: Scenario, passes: [[String: Double]]) {
    self.scenario = scenario
    figures = passes.compactMap { $0[scenario.name] }
    judgements = passes.compactMap { results in
      results[scenario.name].flatMap { scenario.target?.judgement(for: $0, results: results) }
    }
  }

  var figure: Double { median(figures) }

  /// The median judgement, met if its value is within the target; `nil` without a target or
  /// without its baseline.
  var judgement: Report.Judgement? {
    guard let first = judgements.first else { return nil }
    let values = judgements.map(\.value)
    let value = median(values)
    return .init(
      measure: first.measure, value: value, atMost: first.atMost, met: value <= first.atMost,
      passes: judgements.count > 1 ? values : nil)
  }

  /// The line for people: name, figure, verdict, and the range over the passes.
  var line: String {
    let name = scenario.name.padding(toLength: 50, withPad: " ", startingAt: 0)
    var line = name + String(format: "%10.1f ns/action", figure)
    if let judgement, let target = scenario.target { line += "  " + target.verdict(judgement) }
    guard figures.count > 1 else { return line }
    line += "  [median of \(figures.count) passes: "
    if let judgement, judgement.measure.hasPrefix("x ") {
      let values = judgement.passes ?? [judgement.value]
      line += String(format: "%.2fx to %.2fx]", values.min()!, values.max()!)
    } else {
      line += String(format: "%.1f to %.1f ns]", figures.min()!, figures.max()!)
    }
    return line
  }

  /// The report's entry.
  var reportFigure: Report.Figure {
    .init(
      name: scenario.name, value: figure, unit: "ns/action", target: judgement,
      passes: figures.count > 1 ? figures : nil)
  }
}

/// The median of `values` (the mean of the middle two for an even count); `values` is not empty.
func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  let middle = sorted.count / 2
  return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
}

/// Keeps a value alive and opaque to the optimizer.
@inline(never)
func blackHole<T>(_ value: T) {
  withExtendedLifetime(value) {}
}
