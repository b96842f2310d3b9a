/// Counts the ``Secret`` values redacted while one entry is encoded, and names where they are.
///
/// The recorder puts one in its encoder's `userInfo`; a `Secret` that finds it writes a
/// placeholder instead of its value and counts itself here.
final class ActionLogRedaction: Sendable {
  /// The `userInfo` key under which the recorder's encoder carries the collector.
  static let key = CodingUserInfoKey(rawValue: "Unidirectional.ActionLogRedaction")!

  // A lock although one encoder is used by one thread at a time: `userInfo` requires Sendable.
  private let count = Locked(0)

  /// Counts one redacted secret.
  func record() {
    count.withLock { $0 += 1 }
  }

  /// The number of secrets counted since the last call, resetting it to 0.
  func take() -> Int {
    count.withLock { count in
      defer { count = 0 }
      return count
    }
  }

  /// Where `value` holds secrets: dotted paths of case names, property and tuple labels, and
  /// `[index]` for elements, such as `login.passwordChanged`.
  ///
  /// The encoder's coding path cannot say: JSONEncoder leaves out the keys of the nested
  /// containers that synthesized enum encodings use. `Mirror` is fine here: it runs only for
  /// an action that held a secret.
  static func paths(in value: Any) -> [String] {
    var paths: [String] = []
    collect(value, path: [], depth: 0, into: &paths)
    return paths
  }

  private static func collect(_ value: Any, path: [String], depth: Int, into paths: inout [String])
  {
    if value is any RedactedValue {
      paths.append(path.joined(separator: "."))
      return
    }
    // Deep enough for any action; also stops cycles through classes.
    guard depth < 32 else { return }
    let mirror = Mirror(reflecting: value)
    for (index, child) in mirror.children.enumerated() {
      let name: String? =
        switch (mirror.displayStyle, child.label) {
        case (.collection, _), (.set, _), (.dictionary, _): "[\(index)]"
        case (.optional, _): nil
        case (_, let label?) where !label.hasPrefix("."): label
        case (_, _): nil
        }
      collect(child.value, path: path + (name.map { [$0] } ?? []), depth: depth + 1, into: &paths)
    }
  }
}

/// A value an action log writes redacted: ``Secret``, whatever its value type.
protocol RedactedValue {}
