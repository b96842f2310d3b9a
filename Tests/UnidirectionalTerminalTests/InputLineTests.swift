import Testing
import UnidirectionalTerminal

/// Splitting a line, quoting it in an error line, and refusing control characters.
@Suite struct InputLineTests {
  @Test func splitsCommandAndArgument() {
    let line = InputLine("  email   blob@example.com  ")
    #expect(line.command == "email")
    #expect(line.argument == "blob@example.com")
    #expect(InputLine("add Buy  milk").argument == "Buy  milk")
    #expect(InputLine("move 3 1").arguments == ["3", "1"])
    #expect(InputLine(" \t ").isBlank)
    #expect(InputLine("quit").argument.isEmpty)
  }

  @Test func excerptsKeepErrorLinesShort() {
    #expect(InputLine.excerpt("short") == "short")
    #expect(
      InputLine.excerpt(String(repeating: "y", count: 50)) == String(repeating: "y", count: 40)
        + "…")
    #expect(InputLine.trimming("  a b \n") == "a b")
  }

  /// C0 (U+0000–U+001F), DEL (U+007F) and C1 (U+0080–U+009F) are control characters; the
  /// scalars on either side of each range are not.
  @Test func controlCharactersAreC0DELAndC1() {
    for value in UInt32(0)...0x1F {
      #expect(InputLine.isControlCharacter(Unicode.Scalar(value)!), "U+\(value)")
    }
    for value in UInt32(0x80)...0x9F {
      #expect(InputLine.isControlCharacter(Unicode.Scalar(value)!), "U+\(value)")
    }
    #expect(InputLine.isControlCharacter("\u{7F}"))
    for scalar: Unicode.Scalar in ["\u{20}", "\u{7E}", "\u{A0}", "a", "é", "\u{FFFD}", "🙂"] {
      #expect(!InputLine.isControlCharacter(scalar), "\(scalar.value)")
    }
    // The same set as Unicode's general category Cc, over the first 64K scalars.
    for value in UInt32(0)...0xFFFF {
      guard let scalar = Unicode.Scalar(value) else { continue }
      #expect(
        InputLine.isControlCharacter(scalar) == (scalar.properties.generalCategory == .control))
    }
  }

  /// An excerpt never holds a raw control character: each is written as Swift escapes it.
  @Test func excerptsEscapeControlCharacters() {
    #expect(InputLine.excerpt("\u{1B}[A") == #"\u{1B}[A"#)
    #expect(
      InputLine.excerpt("a\u{0}b\u{7F}c\u{9B}d\u{9F}\u{A0}") == #"a\u{00}b\u{7F}c\u{9B}d\u{9F}"#
        + "\u{A0}")
    #expect(InputLine.excerpt("\r\n\t") == #"\u{0D}\u{0A}\u{09}"#)
    // Cut first, then escaped: the limit counts what was typed.
    #expect(InputLine.excerpt("\u{1B}[2J", limit: 2) == #"\u{1B}[…"#)
    for value in UInt32(0)...0xA0 {
      let excerpt = InputLine.excerpt("x" + String(Unicode.Scalar(value)!) + "y")
      #expect(!excerpt.unicodeScalars.contains(where: InputLine.isControlCharacter), "\(value)")
    }
  }

  /// A line with any control character but a tab is refused, quoted and named escaped.
  @Test func aLineWithAControlCharacterIsRefused() {
    #expect(
      InputLine.controlCharacterProblem(in: "add \u{1B}[2JBuy milk")
        == #"the line 'add \u{1B}[2JBuy milk' contains a control character (\u{1B}); type plain text"#
    )
    #expect(
      InputLine.controlCharacterProblem(in: "\u{9B}A")
        == #"the line '\u{9B}A' contains a control character (\u{9B}); type plain text"#)
    // The first one is named; a long line is cut, the character still named.
    #expect(
      InputLine.controlCharacterProblem(in: String(repeating: "y", count: 50) + "\u{7}\u{1B}")
        == "the line '\(String(repeating: "y", count: 40))…' contains a control character "
        + #"(\u{07}); type plain text"#)
    for value in UInt32(0)...0xA0 where value != 0x09 {
      let scalar = Unicode.Scalar(value)!
      #expect(
        (InputLine.controlCharacterProblem(in: "a" + String(scalar)) != nil)
          == InputLine.isControlCharacter(scalar), "U+\(value)")
    }
    // A tab separates words as a space does.
    #expect(InputLine.controlCharacterProblem(in: "add\tBuy milk") == nil)
    #expect(InputLine.controlCharacterProblem(in: "add Buy milk") == nil)
    #expect(InputLine.controlCharacterProblem(in: "") == nil)
  }
}
