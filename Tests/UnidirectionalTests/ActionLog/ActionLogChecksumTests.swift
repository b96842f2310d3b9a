import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// Checksummed entries (format version 2): what recovery keeps, cuts to a quarantine file, or
/// refuses, for damage anywhere in a log.
@Suite struct ActionLogChecksumTests {
  enum Action: Codable, Equatable, Sendable {
    case move(Int)
  }

  static let feature = Reduce<[Int], Action> { state, action in
    switch action {
    case .move(let value):
      state.append(value)
      return .none
    }
  }

  /// A directory of its own, removed at the end of the test.
  struct Files {
    let directory: String
    var log: String { directory + "/game.jsonl" }

    init() throws {
      directory = temporaryFilePath("checksum").replacingOccurrences(of: ".jsonl", with: "")
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: false)
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }

    /// The files beside the log whose names start with the log's and `.quarantine-`.
    var quarantined: [String] {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
      return names.filter { $0.hasPrefix("game.jsonl.quarantine-") }.sorted()
        .map { directory + "/" + $0 }
    }

    var bytes: [UInt8] { Array(FileManager.default.contents(atPath: log) ?? Data()) }

    func write(_ bytes: [UInt8]) throws {
      try Data(bytes).write(to: URL(fileURLWithPath: log))
    }
  }

  /// Plays `moves` on a live store logging durably to `files`, each acknowledged.
  func play(_ moves: some Sequence<Int>, files: Files, committer: ActionLogCommitter)
    async throws
  {
    let log = try DurableActionLog<Action>(
      path: files.log, overwrite: true, program: "server", committer: committer)
    let store = Store(initialState: [], reducer: Self.feature, interceptors: [log.interceptor()])
    for move in moves { try await log.waitUntilDurable(store.send(.move(move))) }
  }

  func recover(_ files: Files, committer: ActionLogCommitter) throws(ActionLogError)
    -> ActionLogRecovery<[Int], Action>
  {
    try DurableActionLog<Action>.recover(
      path: files.log, program: "server", initialState: [], reducer: Self.feature,
      committer: committer)
  }

  /// A byte flipped in the complete last line of a log is damage, not a torn write: the entry
  /// was acknowledged, and its bytes must survive somewhere.
  @Test func aFlippedByteInTheLastCompleteLineIsNotDestroyed() async throws {
    let files = try Files()
    defer { files.remove() }
    let committer = ActionLogCommitter()
    try await play(1...3, files: files, committer: committer)
    var bytes = files.bytes
    let original = bytes
    let lastLineStart = bytes.dropLast().lastIndex(of: 0x0A)! + 1
    bytes[lastLineStart + 5] ^= 0x01
    try files.write(bytes)

    let recovery = try recover(files, committer: committer)
    #expect(recovery.state == [1, 2])
    let quarantine = try #require(files.quarantined.first)
    let moved = Array(FileManager.default.contents(atPath: quarantine) ?? Data())
    #expect(moved == Array(bytes[lastLineStart...]))
    #expect(files.bytes == Array(original[..<lastLineStart]))
  }

  /// Flips each byte of a short journal in turn (its newlines too, which joins two lines), with
  /// one bit and with all eight, and checks what recovery does against the rules: the entry is
  /// kept, or cut as a torn tail into a quarantine file, or opening is refused as damage. Never
  /// a silent loss: each acknowledged entry is recovered, or its bytes are in the quarantine
  /// file, or recovery throws and leaves the file as it was.
  @Test func everyFlippedByteIsKeptCutOrRefused() async throws {
    let files = try Files()
    defer { files.remove() }
    let committer = ActionLogCommitter()
    try await play(1...3, files: files, committer: committer)
    let original = files.bytes
    // The newline ending the header, then each entry's line: where it starts, its newline.
    let newlines = original.indices.filter { original[$0] == 0x0A }
    try #require(newlines.count == 4 && newlines.last == original.count - 1)
    let starts = newlines.dropLast().map { $0 + 1 }
    let ends = Array(newlines.dropFirst())

    /// What recovery must do with a flip at a position.
    enum Expected: Equatable {
      case allOrRefused
      case damaged(line: Int, offset: Int)
      case torn(line: Int, offset: Int, lines: Int, state: [Int])
    }
    func expected(at position: Int) -> Expected {
      if position <= newlines[0] { return .allOrRefused }
      let k = starts.lastIndex { $0 <= position }!
      switch k {
      case 0:
        // Line 2 does not verify, and line 3 (joined or not) or 4 after it does.
        return .damaged(line: 2, offset: starts[0])
      case 1 where position == ends[1]:
        // Lines 3 and 4 joined into one line that does not verify, with nothing after it:
        // both entries' bytes go to the quarantine file.
        return .torn(line: 3, offset: starts[1], lines: 1, state: [1])
      case 1: return .damaged(line: 3, offset: starts[1])
      default: return .torn(line: 4, offset: starts[2], lines: 1, state: [1, 2])
      }
    }

    var outcomes: [String: Int] = [:]
    for position in original.indices {
      for mask: UInt8 in [0x01, 0xFF] {
        var flipped = original
        flipped[position] ^= mask
        try files.write(flipped)
        for path in files.quarantined { try FileManager.default.removeItem(atPath: path) }
        let place = "byte \(position) ^ \(mask)"
        let want = expected(at: position)
        do {
          let recovery = try recover(files, committer: committer)
          switch want {
          case .allOrRefused:
            // A flip the header's checks cannot see (its log id, say): nothing is lost.
            #expect(recovery.state == [1, 2, 3], "\(place)")
            #expect(recovery.tornTail == nil, "\(place)")
            #expect(files.quarantined.isEmpty, "\(place)")
            outcomes["header accepted", default: 0] += 1
          case .damaged:
            Issue.record("\(place): recovered \(recovery.state), expected refusal: \(want)")
          case .torn(let line, let offset, let lines, let state):
            #expect(recovery.state == state, "\(place)")
            let tail = try #require(recovery.tornTail, "\(place)")
            #expect(
              [tail.line, tail.offset, tail.entryCount, tail.bytes] as [Int]
                == [line, offset, lines, original.count - offset], "\(place)")
            #expect(!tail.isRepair, "\(place)")
            #expect(files.quarantined == [tail.quarantinePath], "\(place)")
            let moved = FileManager.default.contents(atPath: tail.quarantinePath)
            #expect(moved == Data(flipped[offset...]), "\(place)")
            #expect(files.bytes == Array(original[..<offset]), "\(place)")
            outcomes["torn tail quarantined", default: 0] += 1
          }
        } catch let error as ActionLogError {
          switch want {
          case .allOrRefused:
            outcomes["header refused", default: 0] += 1
          case .damaged(let line, let offset):
            #expect(error.path == files.log, "\(place)")
            #expect(error.line == line, "\(place)")
            guard case .damaged(let byteOffset, _) = error.reason else {
              Issue.record("\(place): \(error)")
              continue
            }
            #expect(byteOffset == offset, "\(place)")
            #expect(error.description.contains("repairingDamage: true"), "\(place)")
            outcomes["damage refused", default: 0] += 1
          case .torn:
            Issue.record("\(place): refused (\(error)), expected a torn tail: \(want)")
          }
          // Refused: the file is as it was found, and nothing was moved.
          #expect(files.bytes == flipped, "\(place)")
          #expect(files.quarantined.isEmpty, "\(place)")
        }
      }
    }
    // Every rule was exercised.
    #expect(outcomes["damage refused", default: 0] > 0)
    #expect(outcomes["torn tail quarantined", default: 0] > 0)
    #expect(outcomes["header refused", default: 0] > 0)
  }

  /// A last line whose checksum verifies is a complete entry even without its newline: kept,
  /// and the newline written so the next entry starts on a line of its own.
  @Test func aVerifiedLastLineWithoutItsNewlineIsKept() async throws {
    let files = try Files()
    defer { files.remove() }
    let committer = ActionLogCommitter()
    try await play(1...3, files: files, committer: committer)
    let original = files.bytes
    try files.write(Array(original.dropLast()))

    let recovery = try recover(files, committer: committer)
    #expect(recovery.state == [1, 2, 3])
    #expect(recovery.tornTail == nil)
    #expect(recovery.completedLastLine)
    #expect(recovery.description.hasSuffix("; completed the last entry's newline"))
    #expect(files.bytes == original)
    #expect(files.quarantined.isEmpty)

    let store = Store(
      initialState: recovery.state, reducer: Self.feature,
      interceptors: [recovery.log.interceptor()])
    try await recovery.log.waitUntilDurable(store.send(.move(4)))
    let again = try recover(files, committer: committer)
    #expect(again.state == [1, 2, 3, 4])
    #expect(!again.completedLastLine)
  }

  /// Garbage after the last entry (NUL bytes, a line cut off) is a torn tail of several lines:
  /// moved whole to a quarantine file, the next such file numbered after it.
  @Test func garbageAfterTheLastEntryIsMovedToAQuarantineFile() async throws {
    let files = try Files()
    defer { files.remove() }
    let committer = ActionLogCommitter()
    try await play(1...2, files: files, committer: committer)
    let clean = files.bytes
    let garbage = Array("\0\0\0\0\n0badc0de {\"action\":{\"move\"".utf8)
    try files.write(clean + garbage)

    let recovery = try recover(files, committer: committer)
    #expect(recovery.state == [1, 2])
    let tail = try #require(recovery.tornTail)
    #expect(
      [tail.line, tail.offset, tail.entryCount, tail.bytes] as [Int] == [4, clean.count, 2, 31])
    #expect(tail.quarantinePath == files.log + ".quarantine-1")
    #expect(FileManager.default.contents(atPath: tail.quarantinePath) == Data(garbage))
    let mode = try FileManager.default.attributesOfItem(atPath: tail.quarantinePath)[
      .posixPermissions]
    #expect(mode as? Int == 0o600)
    #expect(files.bytes == clean)

    // A second cut never overwrites the first.
    try files.write(clean + [0x00])
    let second = try recover(files, committer: committer)
    #expect(second.tornTail?.quarantinePath == files.log + ".quarantine-2")
    #expect(files.quarantined.count == 2)
  }

  /// A line that does not verify followed by one that does is damage: recovery refuses,
  /// naming the file, the line, the byte offset and the repair, and changes nothing; the
  /// repair moves the damaged line and all after it to a quarantine file, then opens the log.
  @Test func damageIsRefusedUntilRepairedIntoAQuarantineFile() async throws {
    let files = try Files()
    defer { files.remove() }
    let committer = ActionLogCommitter()
    try await play(1...4, files: files, committer: committer)
    var bytes = files.bytes
    let newlines = bytes.indices.filter { bytes[$0] == 0x0A }
    let damagedLine = newlines[1] + 1  // Entry 2, line 3.
    bytes[damagedLine + 20] = 0x00
    try files.write(bytes)

    let error = try #require(throws: ActionLogError.self) {
      try recover(files, committer: committer)
    }
    #expect(error.path == files.log)
    #expect(error.line == 3)
    guard case .damaged(let offset, let problem) = error.reason else {
      Issue.record("expected damage, got \(error)")
      return
    }
    #expect(offset == damagedLine)
    #expect(problem.hasPrefix("checksum mismatch"))
    #expect(
      error.description.hasPrefix("\(files.log), line 3: damaged entry at byte offset \(offset)"))
    #expect(
      error.description.contains(
        "recover with DurableActionLog.recover(path:…, repairingDamage: true)"))
    #expect(files.bytes == bytes)
    #expect(files.quarantined.isEmpty)

    let repaired = try DurableActionLog<Action>.recover(
      path: files.log, program: "server", repairingDamage: true, initialState: [],
      reducer: Self.feature, committer: committer)
    #expect(repaired.state == [1])
    let tail = try #require(repaired.tornTail)
    #expect([tail.line, tail.offset, tail.entryCount] as [Int] == [3, damagedLine, 3])
    #expect(tail.isRepair)
    #expect(
      FileManager.default.contents(atPath: tail.quarantinePath) == Data(bytes[damagedLine...]))
    #expect(repaired.description.contains("; moved a damaged part (from line 3"))

    // The log carries on after entry 1.
    let store = Store(
      initialState: repaired.state, reducer: Self.feature,
      interceptors: [repaired.log.interceptor()])
    try await repaired.log.waitUntilDurable(store.send(.move(9)))
    let again = try recover(files, committer: committer)
    #expect(again.state == [1, 9])
    #expect(again.tornTail == nil)
  }

  /// A log of format version 1 (before checksums) is recovered by its own rules and continued
  /// in version 1: converting it would move every entry, and the offsets its snapshot records.
  @Test func aVersion1LogIsContinuedInVersion1() async throws {
    let files = try Files()
    defer { files.remove() }
    let committer = ActionLogCommitter()
    let header =
      #"{"actionLog":1,"actionType":"UnidirectionalTests.ActionLogChecksumTests.Action","#
      + #""logID":"v1","program":"server","schemaVersion":1}"#
    let entries = (1...2).map {
      #"{"action":{"move":{"_0":\#($0)}},"sequence":\#($0),"timestamp":"2026-11-21T14:03:07.412Z"}"#
    }
    try files.write(Array(([header] + entries).map { $0 + "\n" }.joined().utf8))

    let recovery = try recover(files, committer: committer)
    #expect(recovery.state == [1, 2])
    let store = Store(
      initialState: recovery.state, reducer: Self.feature,
      interceptors: [recovery.log.interceptor()])
    try await recovery.log.waitUntilDurable(store.send(.move(3)))

    let lines = String(decoding: files.bytes, as: UTF8.self).split(separator: "\n")
    #expect(lines.count == 4)
    #expect(lines.first.map(String.init) == header)
    #expect(lines.last?.hasPrefix(#"{"action":{"move":{"_0":3}},"sequence":3,"#) == true)
    #expect(try recover(files, committer: committer).state == [1, 2, 3])
    #expect(try ActionLog<Action>(path: files.log, program: "server").entries.count == 3)
  }

  /// In a version 1 log, a bad line before the last is still refused as it was
  /// (`invalidEntry`); `repairingDamage: true` moves it and all after it to a quarantine file.
  @Test func aVersion1LogWithABadLineInTheMiddleIsRefusedOrRepaired() throws {
    let files = try Files()
    defer { files.remove() }
    let committer = ActionLogCommitter()
    let header =
      #"{"actionLog":1,"actionType":"UnidirectionalTests.ActionLogChecksumTests.Action","#
      + #""logID":"v1","program":"server","schemaVersion":1}"#
    let entry = { (n: Int) in
      #"{"action":{"move":{"_0":\#(n)}},"sequence":\#(n),"timestamp":"2026-11-21T14:03:07.412Z"}"#
    }
    let text = [header, entry(1), #"{"action":{"mo"#, entry(3)].map { $0 + "\n" }.joined()
    try files.write(Array(text.utf8))
    let error = try #require(throws: ActionLogError.self) {
      try recover(files, committer: committer)
    }
    #expect(error.line == 3)
    guard case .invalidEntry = error.reason else {
      Issue.record("expected an invalid entry, got \(error)")
      return
    }
    let repaired = try DurableActionLog<Action>.recover(
      path: files.log, program: "server", repairingDamage: true, initialState: [],
      reducer: Self.feature, committer: committer)
    #expect(repaired.state == [1])
    let offset = (header + entry(1)).utf8.count + 2
    #expect(
      repaired.tornTail.map { [$0.line, $0.offset, $0.entryCount] } == [3, offset, 2])
    #expect(repaired.tornTail?.isRepair == true)
    #expect(
      FileManager.default.contents(atPath: files.log + ".quarantine-1")
        == Data(text.utf8.dropFirst(offset)))
  }

  /// `--record` logs (``ActionLogRecorder``) stay format version 1, plain JSON lines that `jq`
  /// reads; ``ActionLog`` reads both versions, and verifies version 2's checksums.
  @Test func recordedLogsArePlainAndTheReaderVerifiesChecksums() async throws {
    let files = try Files()
    defer { files.remove() }
    let recorded = files.directory + "/recorded.jsonl"
    let recorder = try ActionLogRecorder<Action>(path: recorded, program: "server")
    recorder.record(.move(1))
    let text = try String(contentsOfFile: recorded, encoding: .utf8)
    let lines = text.split(separator: "\n")
    #expect(lines.first?.hasPrefix(#"{"actionLog":1,"#) == true)
    #expect(lines.last?.hasPrefix(#"{"action":{"move":{"_0":1}},"#) == true)

    let committer = ActionLogCommitter()
    try await play(1...3, files: files, committer: committer)
    var bytes = files.bytes
    #expect(String(decoding: bytes, as: UTF8.self).hasPrefix(#"{"actionLog":2,"#))
    let read = try ActionLog<Action>(path: files.log, program: "server")
    #expect(read.entries.map(\.action) == [.move(1), .move(2), .move(3)])
    #expect(read.error == nil)

    let newlines = bytes.indices.filter { bytes[$0] == 0x0A }
    // A checksum digit of entry 2, changed to another hexadecimal digit (flipping a bit of
    // `a` or `f` gives no digit at all, and so another error: the checksum depends on the time).
    let digit = newlines[1] + 3
    bytes[digit] = bytes[digit] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
    let damaged = try ActionLog<Action>(data: Data(bytes), path: "log", program: "server")
    #expect(damaged.entries.count == 1)
    #expect(damaged.error?.line == 3)
    guard case .invalidEntry(let message) = damaged.error?.reason else {
      Issue.record("expected an invalid entry, got \(String(describing: damaged.error))")
      return
    }
    #expect(message.hasPrefix("checksum mismatch"))
  }
}
