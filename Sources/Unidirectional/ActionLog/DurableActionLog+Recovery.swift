import Foundation

extension DurableActionLog where Action: Decodable {
  /// Recovers a store's state from a durable log file and its latest snapshot, and reopens the
  /// log to carry on.
  ///
  /// ```swift
  /// let recovery = try DurableActionLog<Game.Action>.recover(
  ///   path: "game.jsonl", snapshotPath: "game.snapshot.json", program: "game-server",
  ///   initialState: Game.State(), reducer: Game(), committer: committer)
  /// print(recovery)  // recovered through entry 1234: the snapshot at entry 1000, then 234 …
  /// let store = Store(
  ///   initialState: recovery.state, reducer: Game(),
  ///   interceptors: [recovery.log.interceptor(snapshottingTo: "game.snapshot.json", every: 1000)])
  /// ```
  ///
  /// Recovery starts from the snapshot if there is one (else from `initialState`), reads the
  /// log from where the snapshot ends, and replays those entries through `reducer` with effects
  /// ignored. Every action acknowledged before a crash is in the state it returns.
  ///
  /// A last line cut off by a crash (no newline, or not a valid entry) cannot have been
  /// acknowledged: it is removed from the file (durably) and reported in
  /// ``ActionLogRecovery/tornTail``. A bad line *before* the last one is corruption, not a
  /// crash: recovery throws rather than lose the entries after it.
  ///
  /// - Parameters:
  ///   - path: The log file.
  ///   - snapshotPath: The snapshot file the store's interceptor writes, if any. A missing
  ///     file means no snapshot yet.
  ///   - program: The program's name, which must be the one in the log's header.
  ///   - schemaVersion: The newest version of the actions' encoding this program decodes.
  ///   - redactsSecrets: Whether the reopened log writes ``Secret`` payloads redacted.
  ///   - initialState: The state the store started from, used when there is no snapshot.
  ///   - reducer: The store's reducer. It must be deterministic (see ``ActionLog/replay(into:)``).
  ///   - committer: The thread that writes and flushes the reopened log.
  /// - Returns: The state, the reopened log, and what recovery did.
  /// - Throws: ``ActionLogError``: the file cannot be read or repaired (`fileError`), its header
  ///   or the snapshot's does not match (`otherProgram`, `otherActionType`, `newerSchema`,
  ///   `newerFormat`), a line before the last is not a valid entry (`invalidEntry`) or out of
  ///   sequence (`sequenceGap`), or an entry was recorded redacted (`redacted`).
  public static func recover<R: Reducer>(
    path: String, snapshotPath: String? = nil, program: String, schemaVersion: Int = 1,
    redactsSecrets: Bool = true, initialState: R.State, reducer: R,
    committer: ActionLogCommitter
  ) throws(ActionLogError) -> ActionLogRecovery<R.State, Action>
  where R.Action == Action, R.State: Decodable & Sendable {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw ActionLogError(path: path, line: nil, reason: .fileError("no such file"))
    }
    let actionType = String(reflecting: Action.self)
    // Before its first flush, a log may hold nothing whole, not even its header: then nothing
    // was acknowledged, and it starts again.
    guard let headerEnd = data.firstIndex(of: 0x0A) else {
      // A snapshot is written only after its log's header is durable: this one is another's.
      if let snapshotPath, FileManager.default.fileExists(atPath: snapshotPath) {
        throw ActionLogError(
          path: snapshotPath, line: nil,
          reason: .invalidEntry(
            "the snapshot belongs to another log: \(path) has no header yet; remove the snapshot"))
      }
      let header = ActionLogHeader(
        program: program, actionType: actionType, schemaVersion: schemaVersion,
        logID: UUID().uuidString)
      let log = DurableActionLog(
        sink: try ActionLogFileSink(appendingTo: path, at: 0), header: header, nextSequence: 1,
        length: 0, redactsSecrets: redactsSecrets, committer: committer)
      return ActionLogRecovery(
        state: initialState, log: log, sequence: 0, snapshotSequence: nil, replayedCount: 0,
        tornTail: data.isEmpty ? nil : .init(line: 1, bytes: data.count))
    }
    guard
      let header = try ActionLogHeader.read(
        from: data[..<headerEnd], path: path, program: program, actionType: actionType,
        schemaVersion: schemaVersion)
    else {
      throw ActionLogError(
        path: path, line: 1, reason: .invalidEntry("a durable log starts with a header"))
    }

    var state = initialState
    var sequence = 0
    var start = headerEnd + 1
    let snapshot = try snapshotPath.flatMap { (snapshotPath) throws(ActionLogError) in
      try readSnapshot(
        at: snapshotPath, of: R.State.self, header: header, logData: data, logStart: start)
    }
    if let snapshot {
      state = snapshot.state
      sequence = snapshot.sequence
      start = snapshot.logLength
    }

    let (entries, goodLength, torn) = try readTail(
      of: data, from: start, after: sequence, path: path)
    let tornTail = torn.map {
      ActionLogRecovery<R.State, Action>.TornTail(line: $0.line, bytes: $0.bytes)
    }
    if !entries.isEmpty {
      let store = Store(initialState: state) { reducer.ignoringEffects() }
      for entry in entries { store.send(entry.action) }
      state = store.state
      sequence = entries[entries.count - 1].sequence
    }
    let log = DurableActionLog(
      sink: try ActionLogFileSink(appendingTo: path, at: goodLength), header: header,
      nextSequence: sequence + 1, length: goodLength, redactsSecrets: redactsSecrets,
      committer: committer)
    return ActionLogRecovery(
      state: state, log: log, sequence: sequence, snapshotSequence: snapshot?.sequence,
      replayedCount: entries.count, tornTail: tornTail)
  }

  /// The snapshot at `path`, checked against the log, or `nil` if there is none yet.
  private static func readSnapshot<State: Decodable>(
    at path: String, of _: State.Type, header: ActionLogHeader, logData: Data, logStart: Int
  ) throws(ActionLogError) -> ActionLogSnapshot<State>? {
    guard let data = FileManager.default.contents(atPath: path) else {
      if FileManager.default.fileExists(atPath: path) {
        throw ActionLogError(path: path, line: nil, reason: .fileError("the file cannot be read"))
      }
      return nil
    }
    let snapshot: ActionLogSnapshot<State>
    do {
      snapshot = try JSONDecoder().decode(ActionLogSnapshot<State>.self, from: data)
    } catch {
      throw ActionLogError(
        path: path, line: nil,
        reason: .invalidEntry("not a valid snapshot: \(ActionLogError.summary(of: error))"))
    }
    guard snapshot.header.program == header.program else {
      throw ActionLogError(
        path: path, line: nil,
        reason: .otherProgram(recorded: snapshot.header.program, reading: header.program))
    }
    guard snapshot.header.actionType == header.actionType else {
      throw ActionLogError(
        path: path, line: nil,
        reason: .otherActionType(recorded: snapshot.header.actionType, reading: header.actionType))
    }
    guard snapshot.header.logID == header.logID else {
      throw ActionLogError(
        path: path, line: nil,
        reason: .invalidEntry(
          "the snapshot belongs to another log (log id \(snapshot.header.logID ?? "none"), "
            + "not \(header.logID ?? "none")); remove it to recover from the log alone"))
    }
    // It must end where a line of this log ends: otherwise it belongs to another log.
    guard snapshot.logLength >= logStart, snapshot.logLength <= logData.count,
      logData[snapshot.logLength - 1] == 0x0A
    else {
      throw ActionLogError(
        path: path, line: nil,
        reason: .invalidEntry(
          "the snapshot ends at byte \(snapshot.logLength), which is not the end of a line of "
            + "the log (\(logData.count) bytes): it belongs to another log"))
    }
    return snapshot
  }

  /// The entries of `data` from byte `start`, numbered from `sequence + 1`; the length of the
  /// log without its torn last line; and that line, if any.
  private static func readTail(
    of data: Data, from start: Int, after sequence: Int, path: String
  ) throws(ActionLogError) -> (
    entries: [ActionLogEntry<Action>], length: Int, torn: (line: Int, bytes: Int)?
  ) {
    let decoder = JSONDecoder()
    var entries: [ActionLogEntry<Action>] = []
    var offset = start
    while offset < data.count {
      let expected = sequence + entries.count + 1
      // The header is line 1 and entries follow in sequence.
      let line = expected + 1
      guard let newline = data[offset...].firstIndex(of: 0x0A) else {
        return (entries, offset, (line, data.count - offset))
      }
      switch ActionLog<Action>.decodeEntry(
        Data(data[offset..<newline]), isTorn: false, decoder: decoder)
      {
      case .entry(let entry):
        guard entry.sequence == expected else {
          throw ActionLogError(
            path: path, line: line, reason: .sequenceGap(expected: expected, found: entry.sequence))
        }
        entries.append(entry)
        offset = newline + 1
      case .bad(let reason):
        if case .redacted = reason {
          throw ActionLogError(path: path, line: line, reason: reason)
        }
        // A bad last line is what a crash in the middle of a write leaves; anywhere else, the
        // file was damaged and the entries after it must not be dropped.
        guard newline + 1 == data.count else {
          throw ActionLogError(path: path, line: line, reason: reason)
        }
        return (entries, offset, (line, data.count - offset))
      }
    }
    return (entries, offset, nil)
  }
}
