import Foundation

/// Every figure of a run, for `--json` and `--compare`: what each scenario measured, and each
/// ratio a target holds a scenario to.
struct Report: Codable {
  struct Figure: Codable {
    /// The scenario's full name, as printed.
    var name: String
    var value: Double
    /// `ns/action`, `bytes`, or `KiB`.
    var unit: String
    /// What the target compares (`x B1 send, no observers`, `ns per observer run`, ...), the
    /// figure compared, its limit, and whether it is met; absent without a target, or when the
    /// baseline was not measured in this run.
    var target: Judgement?
    /// The figure of each pass, with `--passes` above 1 (`value` is their median).
    var passes: [Double]? = nil
  }

  struct Judgement: Codable {
    var measure: String
    var value: Double
    var atMost: Double
    var met: Bool
    /// The compared value in each pass, with `--passes` above 1 (`value` is their median).
    var passes: [Double]? = nil
  }

  /// When and how the run was made, for whoever reads the file later.
  var date = ISO8601DateFormatter().string(from: Date())
  var quick = false
  var iterations: Int?
  /// How many passes each per-action figure is the median of (D4, M1 and M2 are measured
  /// once, after the passes).
  var passes = 1
  var figures: [Figure] = []

  /// The ratios of targets measured in this run, by `"SCENARIO / BASELINE"`.
  var ratios: [String: Double] {
    var ratios: [String: Double] = [:]
    for figure in figures {
      guard let target = figure.target, target.measure.hasPrefix("x ") else { continue }
      ratios["\(figure.name) / \(target.measure.dropFirst(2))"] = target.value
    }
    return ratios
  }

  enum CodingKeys: String, CodingKey {
    case date, quick, iterations, passes, figures, ratios
  }

  init(quick: Bool, iterations: Int?, passes: Int) {
    self.quick = quick
    self.iterations = iterations
    self.passes = passes
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    date = try container.decode(String.self, forKey: .date)
    quick = try container.decode(Bool.self, forKey: .quick)
    iterations = try container.decodeIfPresent(Int.self, forKey: .iterations)
    // Reports written before `--passes` existed are of one pass.
    passes = try container.decodeIfPresent(Int.self, forKey: .passes) ?? 1
    figures = try container.decode([Figure].self, forKey: .figures)
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(date, forKey: .date)
    try container.encode(quick, forKey: .quick)
    try container.encodeIfPresent(iterations, forKey: .iterations)
    try container.encode(passes, forKey: .passes)
    try container.encode(figures, forKey: .figures)
    try container.encode(ratios, forKey: .ratios)
  }

  func json() -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    // Every figure is finite: a failed measurement stops the run before it gets here.
    return try! encoder.encode(self) + Data("\n".utf8)
  }

  /// One line per figure and per ratio, with its change from `baseline`:
  /// `C0 root send, 10 nested Scopes   2850.6 → 210.3 ns/action (−92.6%)`.
  func comparison(with baseline: Report) -> [String] {
    func change(_ old: Double, _ new: Double) -> String {
      guard old != 0 else { return new == 0 ? "(±0.0%)" : "(was 0)" }
      let percent = (new - old) / old * 100
      let sign = percent > 0 ? "+" : percent < 0 ? "−" : "±"
      return "(\(sign)\(String(format: "%.1f", abs(percent)))%)"
    }
    func pad(_ name: String) -> String {
      name.padding(toLength: max(50, name.count + 1), withPad: " ", startingAt: 0)
    }
    let before = Dictionary(baseline.figures.map { ($0.name, $0) }) { first, _ in first }
    var lines = ["Compared with the run of \(baseline.date):"]
    if baseline.passes != passes {
      // A median of passes and a single pass are different estimates of the same cost.
      lines.append(
        "(the baseline was made with --passes \(baseline.passes), this run with --passes "
          + "\(passes): compare runs made with the same number)")
    }
    for figure in figures {
      guard let old = before[figure.name] else {
        lines.append(
          pad(figure.name)
            + String(format: "%.1f %@ (not in the baseline)", figure.value, figure.unit))
        continue
      }
      lines.append(
        pad(figure.name)
          + String(format: "%.1f → %.1f %@ ", old.value, figure.value, figure.unit)
          + change(old.value, figure.value))
    }
    let measured = Set(figures.map(\.name))
    for figure in baseline.figures where !measured.contains(figure.name) {
      lines.append(pad(figure.name) + "(not measured in this run)")
    }
    let oldRatios = baseline.ratios
    let newRatios = ratios
    if !newRatios.isEmpty { lines.append("Ratios:") }
    for (name, value) in newRatios.sorted(by: { $0.key < $1.key }) {
      guard let old = oldRatios[name] else {
        lines.append(pad(name) + String(format: "%.2fx (not in the baseline)", value))
        continue
      }
      lines.append(pad(name) + String(format: "%.2fx → %.2fx ", old, value) + change(old, value))
    }
    return lines
  }
}
