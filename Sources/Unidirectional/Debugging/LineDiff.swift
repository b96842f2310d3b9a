/// A line-by-line diff of two dumps, in the shape of the test store's failure messages.
///
/// ```
///     Counter.State(
///   −   count: 1,
///   +   count: 2,
///       isTimerOn: false
///     )
/// ```
///
/// Removed lines (expected) are marked `−`, added lines (actual) `+`. Runs of unchanged lines
/// longer than twice ``context`` plus one are collapsed to `… (N unchanged)`.
package enum LineDiff {
  /// Unchanged lines kept on each side of a change.
  static let context = 2

  private enum Line: Equatable {
    case same(String)
    case removed(String)
    case added(String)
  }

  /// The diff of `expected` and `actual`, or `nil` if they are the same text.
  package static func diff(expected: String, actual: String) -> String? {
    guard expected != actual else { return nil }
    let old = expected.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let new = actual.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    return render(lines(old, new))
  }

  /// The lines of a longest-common-subsequence diff. Quadratic in the line counts, which is fine
  /// for dumps of test state; past a size limit everything is shown as changed.
  private static func lines(_ old: [String], _ new: [String]) -> [Line] {
    // Common prefix and suffix first: most diffs are a few lines in a long dump.
    var prefix = 0
    while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
    var suffix = 0
    while suffix < old.count - prefix, suffix < new.count - prefix,
      old[old.count - 1 - suffix] == new[new.count - 1 - suffix]
    {
      suffix += 1
    }
    let a = old[prefix..<(old.count - suffix)]
    let b = new[prefix..<(new.count - suffix)]
    var middle: [Line] = []
    if a.count * b.count > 4_000_000 {
      middle = a.map(Line.removed) + b.map(Line.added)
    } else {
      // lengths[i][j]: LCS length of a[i...] and b[j...].
      let n = a.count
      let m = b.count
      var lengths = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
      for i in stride(from: n - 1, through: 0, by: -1) {
        for j in stride(from: m - 1, through: 0, by: -1) {
          lengths[i][j] =
            a[a.startIndex + i] == b[b.startIndex + j]
            ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
        }
      }
      var i = 0
      var j = 0
      while i < n || j < m {
        if i < n, j < m, a[a.startIndex + i] == b[b.startIndex + j] {
          middle.append(.same(a[a.startIndex + i]))
          i += 1
          j += 1
        } else if j < m, i == n || lengths[i][j + 1] >= lengths[i + 1][j] {
          middle.append(.added(b[b.startIndex + j]))
          j += 1
        } else {
          middle.append(.removed(a[a.startIndex + i]))
          i += 1
        }
      }
      // Show removals before additions within each changed run.
      middle = groupedChanges(middle)
    }
    return old[..<prefix].map(Line.same) + middle + old[(old.count - suffix)...].map(Line.same)
  }

  private static func groupedChanges(_ lines: [Line]) -> [Line] {
    var result: [Line] = []
    var removed: [Line] = []
    var added: [Line] = []
    func flush() {
      result += removed + added
      removed = []
      added = []
    }
    for line in lines {
      switch line {
      case .same:
        flush()
        result.append(line)
      case .removed: removed.append(line)
      case .added: added.append(line)
      }
    }
    flush()
    return result
  }

  private static func render(_ lines: [Line]) -> String {
    var output: [String] = []
    var index = 0
    while index < lines.count {
      guard case .same = lines[index] else {
        switch lines[index] {
        case .removed(let text): output.append("  − " + text)
        case .added(let text): output.append("  + " + text)
        case .same: break
        }
        index += 1
        continue
      }
      var end = index
      while end < lines.count, case .same = lines[end] { end += 1 }
      let run = lines[index..<end].map { line -> String in
        if case .same(let text) = line { return text }
        return ""
      }
      let keepBefore = index == 0 ? 1 : context
      let keepAfter = end == lines.count ? 1 : context
      if run.count > keepBefore + keepAfter + 1 {
        output += run.prefix(keepBefore).map { "    " + $0 }
        let hidden = run.count - keepBefore - keepAfter
        let indent = run[keepBefore].prefix { $0 == " " }
        output.append("    " + indent + "… (\(hidden) unchanged)")
        output += run.suffix(keepAfter).map { "    " + $0 }
      } else {
        output += run.map { "    " + $0 }
      }
      index = end
    }
    return output.joined(separator: "\n")
  }
}
