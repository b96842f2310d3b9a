import Foundation
import Testing
import Unidirectional
import UnidirectionalTestSupport

/// Recovering a store from a durable log file and its snapshot, after a crash.
@Suite struct ActionLogRecoveryTests {
  struct State: Codable, Equatable, Sendable {
    var total = 0
    var moves: [Int] = []
  }
  enum Action: Codable, Equatable, Sendable {
    case move(Int)
  }

  static let feature = Reduce<State, Action> { state, action in
    switch action {
    case .move(let value):
      state.total += value
      state.moves.append(value)
      return .none
    }
  }

  /// A directory of its own, removed at the end of the test.
  struct Files {
    let directory: String
    var log: String { directory + "/game.jsonl" }
    var snapshot: String { directory + "/game.snapshot.json" }

    init() throws {
      directory = temporaryFilePath("recovery").replacingOccurrences(of: ".jsonl", with: "")
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: false)
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }

    func append(_ text: String) throws {
      let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
      defer { try? handle.close() }
      try handle.seekToEnd()
      try handle.write(contentsOf: Data(text.utf8))
    }

    var size: Int {
      ((try? FileManager.default.attributesOfItem(atPath: log)[.size]) as? Int) ?? -1
    }
  }

  /// Plays `moves` on a live store logging to `files` with a snapshot every 10 entries, each
  /// acknowledged, and returns the live state.
  func play(
    _ moves: some Sequence<Int>, overwrite: Bool = false, files: Files,
    committer: ActionLogCommitter
  ) async throws -> State {
    let log = try DurableActionLog<Action>(
      path: files.log, overwrite: overwrite, program: "server", committer: committer)
    let store = Store(
      initialState: State(), reducer: Self.feature,
      interceptors: [log.interceptor(snapshottingTo: files.snapshot, every: 10)])
    for move in moves { try await log.waitUntilDurable(store.send(.move(move))) }
    return store.state
  }

  func recover(_ files: Files, committer: ActionLogCommitter, snapshot: Bool = true) throws
    -> ActionLogRecovery<State, Action>
  {
    try DurableActionLog<Action>.recover(
      path: files.log, snapshotPath: snapshot ? files.snapshot : nil, program: "server",
      initialState: State(), reducer: Self.feature, committer: committer)
  }

  @Test func recoveryFromTheSnapshotAndTheTailReachesTheLiveState() async throws {
    let files = try Files()
    defer { files.remove() }
    let committer = ActionLogCommitter()
    let live = try await play(1...35, files: files, committer: committer)
    // The snapshot at entry 30 is written on the committer's thread once entry 30 is durable,
    // before its next round: one more acknowledged entry proves it done.
    let extra = try DurableActionLog<Action>(
      path: files.directory + "/other.jsonl", program: "server", committer: committer)
    let other = Store(
      initialState: State(), reducer: Self.feature, interceptors: [extra.interceptor()])
    try await extra.waitUntilDurable(other.send(.move(0)))

    let recovery = try recover(files, committer: committer)
    #expect(recovery.state == live)
    #expect(recovery.sequence == 35)
    #expect(recovery.snapshotSequence == 30)
    #expect(recovery.replayedCount == 5)
    #expect(recovery.tornTail == nil)
    #expect(
      recovery.description
        == "recovered through entry 35: the snapshot at entry 30, then 5 entries")

    // The whole log, from the initial state, agrees.
    let full = try recover(files, committer: committer, snapshot: false)
    #expect(full.state == live)
    #expect(full.replayedCount == 35)
    #expect(full.snapshotSequence == nil)
  }

  @Test func aTornLastLineIsReportedAndTruncated() async throws {
    let files = try Files()
    defer { files.remove() }
    let committer = ActionLogCommitter()
    let live = try await play(1...12, files: files, committer: committer)
    let size = files.size
    // A crash in the middle of writing entry 13 (line 14).
    let torn = #"{"action":{"move":{"_0":13}},"seq"#
    try files.append(torn)
    #expect(torn.utf8.count == 33)

    let recovery = try recover(files, committer: committer)
    #expect(recovery.state == live)
    #expect(recovery.tornTail.map { [$0.line, $0.bytes] } == [14, 33])
    #expect(
      recovery.description.hasSuffix(
        "; moved a torn tail (from line 14, byte \(size): 1 line, 33 bytes) to "
          + files.log + ".quarantine-1"))
    #expect(files.size == size)
    #expect(FileManager.default.contents(atPath: files.log + ".quarantine-1") == Data(torn.utf8))

    // The reopened log carries on after entry 12, and a second recovery sees it all.
    let store = Store(
      initialState: recovery.state, reducer: Self.feature,
      interceptors: [recovery.log.interceptor()])
    try await recovery.log.waitUntilDurable(store.send(.move(100)))
    let again = try recover(files, committer: committer)
    #expect(again.state == store.state)
    #expect(again.sequence == 13)
    #expect(again.tornTail == nil)
    let read = try ActionLog<Action>(path: files.log, program: "server")
    #expect(read.entries.map(\.sequence) == Array(1...13))
    #expect(read.error == nil)
  }

  @Test func aBadLastLineWithItsNewlineIsTornToo() async throws {
    let files = try Files()
    defer { files.remove() }
    let committer = ActionLogCommitter()
    let live = try await play(1...3, files: files, committer: committer)
    try files.append("\0\0\0\0\n")
    let recovery = try recover(files, committer: committer)
    #expect(recovery.state == live)
    #expect(recovery.tornTail.map { [$0.line, $0.bytes] } == [5, 5])
  }

  /// Entries are checksummed: a bad line followed by good ones is damage, not a torn write.
  @Test func aBadLineInTheMiddleIsAnError() async throws {
    let files = try Files()
    defer { files.remove() }
    let committer = ActionLogCommitter()
    _ = try await play(1...5, files: files, committer: committer)
    var lines = try String(contentsOfFile: files.log, encoding: .utf8)
      .split(separator: "\n", omittingEmptySubsequences: false)
    lines[3] = #"{"action":{"move":"#  // Entry 3.
    try lines.joined(separator: "\n").write(toFile: files.log, atomically: false, encoding: .utf8)
    let size = files.size

    let error = try #require(throws: ActionLogError.self) {
      try recover(files, committer: committer, snapshot: false)
    }
    #expect(error.line == 4)
    guard case .damaged = error.reason else {
      Issue.record("expected a damaged entry, got \(error)")
      return
    }
    #expect(files.size == size)  // Nothing truncated.
  }

  @Test func aLogCutOffInItsHeaderStartsAgain() throws {
    let files = try Files()
    defer { files.remove() }
    try #"{"actionLog":1,"actionTy"#.write(toFile: files.log, atomically: false, encoding: .utf8)
    let recovery = try recover(files, committer: ActionLogCommitter())
    #expect(recovery.state == State())
    #expect(recovery.sequence == 0)
    #expect(recovery.tornTail.map { [$0.line, $0.bytes] } == [1, 24])
  }

  @Test func anotherProgramsLogIsRefused() async throws {
    let files = try Files()
    defer { files.remove() }
    let committer = ActionLogCommitter()
    _ = try await play(1...2, files: files, committer: committer)
    #expect(
      throws: ActionLogError(
        path: files.log, line: 1, reason: .otherProgram(recorded: "server", reading: "other"))
    ) {
      try DurableActionLog<Action>.recover(
        path: files.log, program: "other", initialState: State(), reducer: Self.feature,
        committer: committer)
    }
  }

  @Test func theSnapshotIsReplacedWholeAndReadableOnlyByItsOwner() async throws {
    let files = try Files()
    defer { files.remove() }
    let committer = ActionLogCommitter()
    _ = try await play(1...20, files: files, committer: committer)
    let extra = try DurableActionLog<Action>(
      path: files.directory + "/other.jsonl", program: "server", committer: committer)
    let other = Store(
      initialState: State(), reducer: Self.feature, interceptors: [extra.interceptor()])
    try await extra.waitUntilDurable(other.send(.move(0)))
    let attributes = try FileManager.default.attributesOfItem(atPath: files.snapshot)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    let temporaries = try FileManager.default.contentsOfDirectory(atPath: files.directory)
      .filter { $0.hasSuffix(".tmp") }
    #expect(temporaries.isEmpty)
    let text = try String(contentsOfFile: files.snapshot, encoding: .utf8)
    #expect(text.contains(#""sequence":20"#))
  }

  @Test func aRequestedSnapshotIsTakenAfterTheNextAction() async throws {
    let files = try Files()
    defer { files.remove() }
    let committer = ActionLogCommitter()
    let log = try DurableActionLog<Action>(
      path: files.log, program: "server", committer: committer)
    let store = Store(
      initialState: State(), reducer: Self.feature,
      interceptors: [log.interceptor(snapshottingTo: files.snapshot, every: 1000)])
    try await log.waitUntilDurable(store.send(.move(1)))
    log.requestSnapshot()
    try await log.waitUntilDurable(store.send(.move(2)))
    // The snapshot is written in entry 2's round; entry 3's round comes after it.
    try await log.waitUntilDurable(store.send(.move(3)))
    let recovery = try recover(files, committer: committer)
    #expect(recovery.snapshotSequence == 2)
    #expect(recovery.replayedCount == 1)
    #expect(recovery.state == store.state)
  }

  @Test func anotherLogsSnapshotIsRefused() async throws {
    let files = try Files()
    defer { files.remove() }
    let committer = ActionLogCommitter()
    _ = try await play(1...20, files: files, committer: committer)
    let extra = try DurableActionLog<Action>(
      path: files.directory + "/other.jsonl", program: "server", committer: committer)
    let other = Store(
      initialState: State(), reducer: Self.feature, interceptors: [extra.interceptor()])
    try await extra.waitUntilDurable(other.send(.move(0)))
    // A new game in a new log at the same path, before its first snapshot: the old game's
    // snapshot is still there.
    let live = try await play(1...5, overwrite: true, files: files, committer: committer)
    let error = try #require(throws: ActionLogError.self) {
      try recover(files, committer: committer)
    }
    #expect(error.path == files.snapshot)
    #expect(error.description.contains("the snapshot belongs to another log"))
    #expect(try recover(files, committer: committer, snapshot: false).state == live)
  }

  enum LoginAction: Codable, Equatable, Sendable {
    case password(Secret<String>)
  }

  /// A secret is redacted by default, and then cannot be recovered; a log made to recover
  /// stores whose actions hold secrets keeps them.
  @Test func secretsAreRecoveredOnlyFromALogThatKeepsThem() async throws {
    let files = try Files()
    defer { files.remove() }
    let committer = ActionLogCommitter()
    let login = Reduce<String, LoginAction> { state, action in
      switch action {
      case .password(let secret): state = secret.value
      }
      return .none
    }
    for redactsSecrets in [true, false] {
      let log = try DurableActionLog<LoginAction>(
        path: files.log, overwrite: true, program: "server", redactsSecrets: redactsSecrets,
        committer: committer)
      let store = Store(initialState: "", reducer: login, interceptors: [log.interceptor()])
      try await log.waitUntilDurable(store.send(.password(Secret("hunter2"))))
      let text = try String(contentsOfFile: files.log, encoding: .utf8)
      #expect(text.contains("hunter2") == !redactsSecrets)
      let recover = { () throws(ActionLogError) in
        try DurableActionLog<LoginAction>.recover(
          path: files.log, program: "server", redactsSecrets: redactsSecrets,
          initialState: "", reducer: login, committer: committer)
      }
      if redactsSecrets {
        #expect(
          throws: ActionLogError(path: files.log, line: 2, reason: .redacted(["password"]))
        ) { try recover() }
      } else {
        #expect(try recover().state == "hunter2")
      }
    }
  }

  @Test func aSymbolicLinkAtTheSnapshotPathIsReplacedNotWrittenThrough() async throws {
    let files = try Files()
    defer { files.remove() }
    let elsewhere = files.directory + "/elsewhere.txt"
    try Data("precious\n".utf8).write(to: URL(fileURLWithPath: elsewhere))
    try FileManager.default.createSymbolicLink(
      atPath: files.snapshot, withDestinationPath: elsewhere)
    let committer = ActionLogCommitter()
    _ = try await play(1...10, files: files, committer: committer)
    #expect(FileManager.default.contents(atPath: elsewhere) == Data("precious\n".utf8))
    let type = try FileManager.default.attributesOfItem(atPath: files.snapshot)[.type]
    #expect(type as? FileAttributeType == .typeRegular)
    #expect(try recover(files, committer: committer).snapshotSequence == 10)
  }

  @Test func recoveryRemovesTheSnapshotTemporariesOfKilledProcessesOnly() async throws {
    let files = try Files()
    defer { files.remove() }
    let committer = ActionLogCommitter()
    _ = try await play(1...3, files: files, committer: committer)
    let dead = try endedProcessID()
    let name = ".game.snapshot.json"
    let (killed, running) = ("\(name).\(dead).4.tmp", "\(name).\(getpid()).7.tmp")
    let legacy = "game.snapshot.json.tmp"  // Every snapshot's temporary, in earlier versions.
    for temporary in [killed, running, legacy] {
      try Data("{".utf8).write(to: URL(fileURLWithPath: files.directory + "/" + temporary))
    }
    _ = try recover(files, committer: committer)
    let names = try FileManager.default.contentsOfDirectory(atPath: files.directory)
    #expect(!names.contains(killed) && !names.contains(legacy))
    #expect(names.contains(running))  // This process's: perhaps being written now.
  }

  @Test func anAcknowledgedEntryHasItsSnapshotWrittenAlready() async throws {
    let files = try Files()
    defer { files.remove() }
    let log = try DurableActionLog<Action>(
      path: files.log, program: "server", committer: ActionLogCommitter())
    let written = Log<Int>()
    let store = Store(
      initialState: State(), reducer: Self.feature,
      interceptors: [
        log.interceptor(snapshottingEvery: 2) { sequence, _ in
          // A slow store of snapshots: without the order, the acknowledgement would come first.
          usleep(20_000)
          written.append(sequence)
        }
      ])
    for move in 1...6 {
      try await log.waitUntilDurable(store.send(.move(move)))
      #expect(written.values == Array(stride(from: 2, through: move, by: 2)))
    }
  }
}
