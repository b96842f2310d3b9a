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
  /// What recovery keeps, cuts or refuses depends on the log's format version, in its header
  /// (see ``ActionLogHeader``). In a checksummed log (version 2, what this library writes):
  ///
  /// - A last line whose checksum verifies is a complete entry, even without its newline: it
  ///   is kept, and its newline written (``ActionLogRecovery/completedLastLine``).
  /// - Lines that do not verify (a bad checksum, cut off, NUL or other garbage bytes), with no
  ///   line after them that verifies, are what a crash in the middle of a write leaves: none of
  ///   them was acknowledged. They are a torn tail: moved to a quarantine file beside the log
  ///   (`<path>.quarantine-N`, written and `fsync`ed first), cut from the log (durably), and
  ///   reported in ``ActionLogRecovery/tornTail``.
  /// - A line that does not verify *followed* by one that does is damage, not a crash:
  ///   recovery changes nothing and throws ``ActionLogError/Reason/damaged(byteOffset:problem:)``,
  ///   naming the line and its byte offset. With `repairingDamage: true`, it moves that line and
  ///   everything after it to a quarantine file instead, as for a torn tail, and recovers the
  ///   entries before it.
  ///
  /// In a log of format version 1 (no checksums), a last line that has no newline or is not a
  /// valid entry is the torn tail, moved to a quarantine file in the same way; a bad line
  /// before the last throws `invalidEntry`, or, with `repairingDamage: true`, is cut with all
  /// after it. The reopened log is continued in version 1: rewriting the file in version 2
  /// would move every entry, and with them the offsets its snapshot records.
  ///
  /// Nothing cut is destroyed: an acknowledged entry is recovered, or its bytes are in a
  /// quarantine file, or recovery throws.
  ///
  /// - Parameters:
  ///   - path: The log file.
  ///   - snapshotPath: The snapshot file the store's interceptor writes, if any. A missing
  ///     file means no snapshot yet.
  ///   - program: The program's name, which must be the one in the log's header.
  ///   - schemaVersion: The newest version of the actions' encoding this program decodes.
  ///   - redactsSecrets: Whether the reopened log writes ``Secret`` payloads redacted.
  ///   - repairingDamage: Whether to cut a damaged line and everything after it (moved to a
  ///     quarantine file) instead of throwing `damaged`: `false` by default. Entries after the
  ///     damage are cut too, acknowledged or not; the quarantine file keeps their bytes for an
  ///     operator to examine.
  ///   - initialState: The state the store started from, used when there is no snapshot.
  ///   - reducer: The store's reducer. It must be deterministic (see ``ActionLog/replay(into:)``).
  ///   - committer: The thread that writes and flushes the reopened log.
  /// - Returns: The state, the reopened log, and what recovery did.
  /// - Throws: ``ActionLogError``: the file cannot be read, quarantined or cut (`fileError`),
  ///   its header or the snapshot's does not match (`otherProgram`, `otherActionType`,
  ///   `newerSchema`, `unsupportedFormat`), a line that does not verify is followed by one that
  ///   does (`damaged`; in format version 1, a line before the last is not a valid entry,
  ///   `invalidEntry`), an entry whose checksum verifies does not decode (`invalidEntry`) or is
  ///   out of sequence (`sequenceGap`), or an entry was recorded redacted (`redacted`).
  public static func recover<R: Reducer>(
    path: String, snapshotPath: String? = nil, program: String, schemaVersion: Int = 1,
    redactsSecrets: Bool = true, repairingDamage: Bool = false, initialState: R.State,
    reducer: R,
    committer: ActionLogCommitter
  ) throws(ActionLogError) -> ActionLogRecovery<R.State, Action>
  where R.Action == Action, R.State: Decodable & Sendable {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw ActionLogError(path: path, line: nil, reason: .fileError("no such file"))
    }
    // A process killed while it wrote a snapshot left its temporary file; nothing else removes it.
    if let snapshotPath {
      AtomicFile.removeStaleTemporaries(of: snapshotPath, followingLinks: false)
      LogFile.removeLegacyTemporary(of: snapshotPath)
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
      var tornTail: ActionLogRecovery<R.State, Action>.TornTail?
      if !data.isEmpty {
        tornTail = try quarantine(Cut(line: 1, offset: 0, lines: 1), of: data, path: path)
      }
      let log = DurableActionLog(
        sink: try ActionLogFileSink(appendingTo: path, at: 0), header: header, nextSequence: 1,
        length: 0, redactsSecrets: redactsSecrets, committer: committer)
      return ActionLogRecovery(
        state: initialState, log: log, sequence: 0, snapshotSequence: nil, replayedCount: 0,
        tornTail: tornTail, completedLastLine: false)
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

    let tail =
      header.format == ActionLogHeader.recorderFormat
      ? try readPlainTail(
        of: data, from: start, after: sequence, path: path, repairingDamage: repairingDamage)
      : try readChecksummedTail(
        of: data, from: start, after: sequence, path: path, repairingDamage: repairingDamage)
    let entries = tail.entries
    // The cut bytes are in their quarantine file, durably, before the log loses them.
    let tornTail = try tail.cut.map {
      (cut) throws(ActionLogError) -> ActionLogRecovery<R.State, Action>.TornTail in
      try quarantine(cut, of: data, path: path)
    }
    if !entries.isEmpty {
      let store = Store(initialState: state) { reducer.ignoringEffects() }
      for entry in entries { store.send(entry.action) }
      state = store.state
      sequence = entries[entries.count - 1].sequence
    }
    let sink = try ActionLogFileSink(appendingTo: path, at: tail.length)
    var length = tail.length
    if tail.completesLastLine {
      // The entry verified: its write completed but for the newline, which the next entry
      // needs before it.
      try sink.write(Data([0x0A]))
      try sink.flush()
      length += 1
    }
    let log = DurableActionLog(
      sink: sink, header: header, nextSequence: sequence + 1, length: length,
      redactsSecrets: redactsSecrets, committer: committer)
    return ActionLogRecovery(
      state: state, log: log, sequence: sequence, snapshotSequence: snapshot?.sequence,
      replayedCount: entries.count, tornTail: tornTail, completedLastLine: tail.completesLastLine)
  }

  /// Where recovery cuts a log: from `line`, at byte `offset`, `lines` lines to the end.
  struct Cut {
    var line: Int
    var offset: Int
    var lines: Int
    var isRepair = false
  }

  /// A line of a checksummed log: where it starts, and its verified JSON or what is wrong.
  struct ScannedLine {
    var offset: Int
    var payload: ActionLogLine.Payload
  }

  /// What recovery keeps of a log's tail: the entries to replay, the length of the log without
  /// the cut, whether its last kept line lacks its newline, and the cut, if any.
  struct Tail {
    var entries: [ActionLogEntry<Action>]
    var length: Int
    var completesLastLine = false
    var cut: Cut?
  }

  /// Moves the bytes of `data` from `cut` on to a quarantine file beside `path`, and describes
  /// the cut.
  private static func quarantine<State>(
    _ cut: Cut, of data: Data, path: String
  ) throws(ActionLogError) -> ActionLogRecovery<State, Action>.TornTail {
    let bytes = data.count - cut.offset
    let quarantinePath = try LogFile.quarantine(
      data.subdata(in: cut.offset..<data.count), beside: path)
    return .init(
      line: cut.line, bytes: bytes, offset: cut.offset, entryCount: cut.lines,
      quarantinePath: quarantinePath, isRepair: cut.isRepair)
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
    let snapshot = try decodeSnapshot(data, of: State.self, path: path, header: header)
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

  /// The snapshot encoded in `data`, checked against the log's header (program, action type,
  /// log id).
  static func decodeSnapshot<State: Decodable>(
    _ data: Data, of _: State.Type, path: String, header: ActionLogHeader
  ) throws(ActionLogError) -> ActionLogSnapshot<State> {
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
    return snapshot
  }

  /// The entries of a log of format version 1 (plain JSON lines) from byte `start` of `data`,
  /// numbered from `sequence + 1`, and its torn last line, if any (or, when repairing, the
  /// first bad line and all after it).
  private static func readPlainTail(
    of data: Data, from start: Int, after sequence: Int, path: String, repairingDamage: Bool
  ) throws(ActionLogError) -> Tail {
    let decoder = JSONDecoder()
    var entries: [ActionLogEntry<Action>] = []
    var offset = start
    while offset < data.count {
      let expected = sequence + entries.count + 1
      // The header is line 1 and entries follow in sequence.
      let line = expected + 1
      guard let newline = data[offset...].firstIndex(of: 0x0A) else {
        return Tail(
          entries: entries, length: offset, cut: Cut(line: line, offset: offset, lines: 1))
      }
      switch ActionLog<Action>.decodeJSON(
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
        // file was damaged and the entries after it must not be dropped unless asked.
        let isLast = newline + 1 == data.count
        guard isLast || repairingDamage else {
          throw ActionLogError(path: path, line: line, reason: reason)
        }
        let lines = data[offset...].count { $0 == 0x0A } + (data.last == 0x0A ? 0 : 1)
        return Tail(
          entries: entries, length: offset,
          cut: Cut(line: line, offset: offset, lines: lines, isRepair: !isLast))
      }
    }
    return Tail(entries: entries, length: offset)
  }

  /// The entries of a checksummed log (format version 2) from byte `start` of `data`, numbered
  /// from `sequence + 1`, and its torn tail, if any: the lines from the first that does not
  /// verify, if none after it verifies (or, when repairing, whether or not one does).
  static func readChecksummedTail(
    of data: Data, from start: Int, after sequence: Int, path: String, repairingDamage: Bool
  ) throws(ActionLogError) -> Tail {
    // Every line from `start`: where it starts, and its verified JSON or what is wrong with it.
    var lines: [ScannedLine] = []
    var offset = start
    while offset < data.count {
      let end = data[offset...].firstIndex(of: 0x0A) ?? data.count
      let payload = ActionLogLine.payload(
        of: data[offset..<end], format: ActionLogHeader.durableFormat)
      lines.append(ScannedLine(offset: offset, payload: payload))
      offset = end + 1
    }
    // Line `index` holds entry `sequence + index + 1`, and the header is line 1.
    let lineNumber = { (index: Int) in sequence + index + 2 }
    var kept = lines.count
    var cut: Cut?
    if let firstBad = lines.firstIndex(where: { !$0.payload.isValid }) {
      // A checksum that verifies after a bad line: that line was written whole, then damaged.
      let isDamage = lines[(firstBad + 1)...].contains { $0.payload.isValid }
      if isDamage && !repairingDamage {
        let reason = ActionLogError.Reason.damaged(
          byteOffset: lines[firstBad].offset, problem: lines[firstBad].payload.problem ?? "")
        throw ActionLogError(path: path, line: lineNumber(firstBad), reason: reason)
      }
      kept = firstBad
      cut = Cut(
        line: lineNumber(firstBad), offset: lines[firstBad].offset,
        lines: lines.count - firstBad, isRepair: isDamage)
    }
    let decoder = JSONDecoder()
    var entries: [ActionLogEntry<Action>] = []
    for (index, line) in lines[..<kept].enumerated() {
      guard case .json(let json) = line.payload else { preconditionFailure() }
      let expected = sequence + index + 1
      switch ActionLog<Action>.decodeJSON(json, isTorn: false, decoder: decoder) {
      case .entry(let entry):
        guard entry.sequence == expected else {
          throw ActionLogError(
            path: path, line: lineNumber(index),
            reason: .sequenceGap(expected: expected, found: entry.sequence))
        }
        entries.append(entry)
      case .bad(let reason):
        // Its checksum verifies: these are the bytes written, which this program cannot read
        // (a redacted secret, or an action type that changed).
        throw ActionLogError(path: path, line: lineNumber(index), reason: reason)
      }
    }
    let length = cut?.offset ?? data.count
    return Tail(
      entries: entries, length: length,
      completesLastLine: kept > 0 && length > start && data[length - 1] != 0x0A, cut: cut)
  }
}
