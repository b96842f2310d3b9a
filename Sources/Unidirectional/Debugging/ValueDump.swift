/// Writes values as indented, multi-line text that diffs well line by line.
///
/// Structs and classes print one stored property per line, enums their case and associated
/// values, collections one element per line with its index, dictionaries and sets in a stable
/// order (sorted by the dump of the key or element). Values without children (numbers, strings,
/// identifiers) print their description. Uses `Mirror`, which is fine here: dumping happens only
/// when a test fails or a `printChanges` reducer runs, never on the plain path of `send`.
///
/// Shared by the test store's messages and ``Reducer/printChanges(to:)``.
package enum ValueDump {
  /// The dump of `value`, lines separated by `\n`.
  package static func dump(_ value: Any) -> String {
    var lines: [String] = []
    var visiting: Set<ObjectIdentifier> = []
    write(value, label: "", indent: 0, into: &lines, visiting: &visiting)
    return lines.joined(separator: "\n")
  }

  /// The deepest nesting that is written out; deeper values print `…`.
  private static let maximumDepth = 48

  private static func write(
    _ value: Any, label: String, indent: Int, into lines: inout [String],
    visiting: inout Set<ObjectIdentifier>
  ) {
    let pad = String(repeating: " ", count: indent * 2)
    guard indent < maximumDepth else {
      lines.append(pad + label + "…")
      return
    }
    let mirror = Mirror(reflecting: value)
    // Closing a nested block: the opening line is `label + open`, children are one level deeper.
    func block(_ open: String, _ close: String, _ children: [(String, Any)]) {
      guard !children.isEmpty else {
        lines.append(pad + label + open + close)
        return
      }
      lines.append(pad + label + open)
      for (index, child) in children.enumerated() {
        let start = lines.count
        write(child.1, label: child.0, indent: indent + 1, into: &lines, visiting: &visiting)
        if index < children.count - 1, lines.count > start { lines[lines.count - 1] += "," }
      }
      lines.append(pad + close)
    }

    switch mirror.displayStyle {
    case .optional:
      if let wrapped = mirror.children.first?.value {
        write(wrapped, label: label, indent: indent, into: &lines, visiting: &visiting)
      } else {
        lines.append(pad + label + "nil")
      }
    case .collection:
      block("[", "]", mirror.children.enumerated().map { ("[\($0.offset)]: ", $0.element.value) })
    case .set:
      let sorted = mirror.children.map { ($0.value, dump($0.value)) }.sorted { $0.1 < $1.1 }
      block("Set([", "])", sorted.map { ("", $0.0) })
    case .dictionary:
      let entries = mirror.children.map { child -> (key: String, value: Any) in
        let pair = Array(Mirror(reflecting: child.value).children)
        let key = pair.first.map { dump($0.value) } ?? "?"
        return (key, pair.count > 1 ? pair[1].value : ())
      }
      .sorted { $0.key < $1.key }
      if entries.isEmpty {
        lines.append(pad + label + "[:]")
      } else {
        block("[", "]", entries.map { ("\($0.key.replacingNewlines): ", $0.value) })
      }
    case .tuple:
      block("(", ")", mirror.children.map { (tupleLabel($0.label), $0.value) })
    case .enum:
      let type = typeName(of: value)
      guard let payload = mirror.children.first else {
        lines.append(pad + label + type + "." + String(describing: value))
        return
      }
      let name = type + "." + (payload.label ?? "?")
      let values = Mirror(reflecting: payload.value)
      let parts: [(String, Any)] =
        values.displayStyle == .tuple
        ? values.children.map { (tupleLabel($0.label), $0.value) }
        : [("", payload.value)]
      // One short, single-line associated value stays on the case's line.
      if parts.count == 1, parts[0].0.isEmpty {
        let inner = dump(parts[0].1)
        if !inner.contains("\n") {
          lines.append(pad + label + name + "(" + inner + ")")
          return
        }
      }
      block(name + "(", ")", parts)
    case .class:
      let id = ObjectIdentifier(value as AnyObject)
      guard visiting.insert(id).inserted else {
        lines.append(pad + label + typeName(of: value) + "(↩︎)")
        return
      }
      defer { visiting.remove(id) }
      block(typeName(of: value) + "(", ")", allChildren(of: mirror))
    case .struct:
      if mirror.children.isEmpty {
        lines.append(pad + label + leafDescription(value))
      } else {
        block(typeName(of: value) + "(", ")", allChildren(of: mirror))
      }
    default:
      lines.append(pad + label + leafDescription(value))
    }
  }

  /// The label of a tuple element: none for positional elements, which `Mirror` calls `.0`.
  private static func tupleLabel(_ label: String?) -> String {
    guard let label, !label.hasPrefix(".") else { return "" }
    return label + ": "
  }

  /// Stored properties of a class include those of its superclasses, base first.
  private static func allChildren(of mirror: Mirror) -> [(String, Any)] {
    let inherited = mirror.superclassMirror.map(allChildren(of:)) ?? []
    return inherited + mirror.children.map { (($0.label.map { "\($0): " }) ?? "", $0.value) }
  }

  private static func leafDescription(_ value: Any) -> String {
    switch value {
    case let string as String: return string.debugDescription
    case let character as Character: return String(character).debugDescription
    case let custom as CustomStringConvertible: return custom.description.replacingNewlines
    default:
      let type = typeName(of: value)
      return "\(type)()"
    }
  }

  /// The type's name without its module: `Feature.State`, not `MyApp.Feature.State`.
  static func typeName(of value: Any) -> String {
    typeName(type(of: value))
  }

  /// The name of `type` without its module, and without the `(unknown context at $…)` that
  /// private and local types have.
  package static func typeName(_ type: Any.Type) -> String {
    var full = String(reflecting: type)
    while let start = full.range(of: "(unknown context at "),
      let end = full[start.upperBound...].range(of: ").")
    {
      full.removeSubrange(start.lowerBound..<end.upperBound)
    }
    guard let dot = full.firstIndex(of: "."), !full[..<dot].contains("<") else { return full }
    return String(full[full.index(after: dot)...])
  }

  /// The dump of `value` on one line, for messages.
  package static func line(_ value: Any) -> String {
    dump(value).split(separator: "\n").map { $0.trimmingPrefix(while: \.isWhitespace) }
      .joined(separator: " ")
  }
}

extension String {
  /// The string with line breaks escaped, so that a dump line stays one line.
  fileprivate var replacingNewlines: String {
    split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\\n")
  }
}
