import Foundation

extension DurableActionLog where Action: Decodable {
  /// Recovers a store's state from lines a sink of your own kept (a database, a log service),
  /// and continues the log in that sink.
  ///
  /// Use it for a sink that stores each line as a record, such as a table row, rather than as
  /// bytes of a file: read the log's header line, its latest snapshot (written by
  /// ``interceptor(snapshottingEvery:with:)``) and the entry lines after that snapshot's
  /// sequence, and pass them here.
  ///
  /// ```swift
  /// let rows = try database.rows(of: "game-42")  // Header, snapshot, entries after it.
  /// let recovery = try DurableActionLog<Game.Action>.recover(
  ///   header: rows.header, snapshot: rows.snapshot, entries: rows.entries,
  ///   continuingIn: database.sink(for: "game-42", after: rows.lastSequence),
  ///   name: "game-42", program: "game-server",
  ///   initialState: Game.State(), reducer: Game(), committer: committer)
  /// ```
  ///
  /// Such a sink commits whole lines, so there is no torn tail to cut: every line must verify
  /// its checksum (format version 2). A line that does not is damage, and recovery refuses it
  /// with ``ActionLogError/Reason/damaged(byteOffset:problem:)`` (the offset counted from the
  /// start of `entries`), changing nothing; the operator decides what to do with the record.
  ///
  /// - Parameters:
  ///   - header: The log's header line, without its newline, or `nil` if the sink holds
  ///     nothing for this log yet: then the log starts anew, and its header is the first line
  ///     written to `sink`.
  ///   - snapshot: The latest snapshot's bytes, as the snapshot closure received them, or `nil`.
  ///   - entries: The entry lines after the snapshot's sequence (after sequence 0 without a
  ///     snapshot), in order, each ending with a newline.
  ///   - sink: Where the reopened log appends, after the last of `entries`.
  ///   - name: The log's name in errors, such as its key in the database.
  ///   - program: The program's name, which must be the one in the log's header.
  ///   - schemaVersion: The newest version of the actions' encoding this program decodes.
  ///   - redactsSecrets: Whether the reopened log writes ``Secret`` payloads redacted.
  ///   - initialState: The state the store started from, used when there is no snapshot.
  ///   - reducer: The store's reducer; it must be deterministic.
  ///   - committer: The thread that writes and flushes the reopened log.
  /// - Returns: The state, the reopened log, and what recovery did (never a torn tail).
  /// - Throws: ``ActionLogError``: the header or snapshot does not match (`otherProgram`,
  ///   `otherActionType`, `newerSchema`, `unsupportedFormat` for anything but format version
  ///   2, `invalidEntry` for another log's snapshot), a line does not verify or lacks its
  ///   newline (`damaged`), an entry does not decode (`invalidEntry`, `redacted`) or is out of
  ///   sequence (`sequenceGap`).
  public static func recover<R: Reducer>(
    header: Data?, snapshot: Data?, entries: Data, continuingIn sink: any ActionLogSink,
    name: String, program: String, schemaVersion: Int = 1, redactsSecrets: Bool = true,
    initialState: R.State, reducer: R, committer: ActionLogCommitter
  ) throws(ActionLogError) -> ActionLogRecovery<R.State, Action>
  where R.Action == Action, R.State: Decodable & Sendable {
    let actionType = String(reflecting: Action.self)
    guard let headerLine = header else {
      // The header is written in the log's first round, with its first entries: without it,
      // nothing of this log was ever committed.
      guard snapshot == nil, entries.isEmpty else {
        throw ActionLogError(
          path: name, line: 1,
          reason: .invalidEntry("entries or a snapshot without the log's header"))
      }
      let header = ActionLogHeader(
        program: program, actionType: actionType, schemaVersion: schemaVersion,
        logID: UUID().uuidString)
      let log = DurableActionLog(
        sink: sink, header: header, nextSequence: 1, length: 0, redactsSecrets: redactsSecrets,
        committer: committer)
      return ActionLogRecovery(
        state: initialState, log: log, sequence: 0, snapshotSequence: nil, replayedCount: 0,
        tornTail: nil, completedLastLine: false)
    }
    guard
      let header = try ActionLogHeader.read(
        from: headerLine, path: name, program: program, actionType: actionType,
        schemaVersion: schemaVersion)
    else {
      throw ActionLogError(
        path: name, line: 1, reason: .invalidEntry("a durable log starts with a header"))
    }
    guard header.format == ActionLogHeader.durableFormat else {
      throw ActionLogError(
        path: name, line: 1,
        reason: .unsupportedFormat(found: header.format, supported: [ActionLogHeader.durableFormat])
      )
    }
    var state = initialState
    var sequence = 0
    let decoded = try snapshot.map { (data) throws(ActionLogError) in
      try decodeSnapshot(data, of: R.State.self, path: name, header: header)
    }
    if let decoded {
      state = decoded.state
      sequence = decoded.sequence
    }
    let tail = try readChecksummedTail(
      of: entries, from: 0, after: sequence, path: name, repairingDamage: false)
    if let cut = tail.cut {
      // A record store commits whole lines: a line that does not verify was damaged after.
      let end = entries[cut.offset...].firstIndex(of: 0x0A) ?? entries.count
      let problem =
        ActionLogLine.payload(
          of: entries[cut.offset..<end], format: ActionLogHeader.durableFormat
        ).problem ?? ""
      throw ActionLogError(
        path: name, line: cut.line, reason: .damaged(byteOffset: cut.offset, problem: problem))
    }
    if tail.completesLastLine {
      throw ActionLogError(
        path: name, line: sequence + tail.entries.count + 1,
        reason: .damaged(
          byteOffset: entries.count, problem: "the last line has no newline"))
    }
    if !tail.entries.isEmpty {
      let store = Store(initialState: state) { reducer.ignoringEffects() }
      for entry in tail.entries { store.send(entry.action) }
      state = store.state
      sequence = tail.entries[tail.entries.count - 1].sequence
    }
    // Any positive length: it only keeps the header from being written again, as snapshots
    // taken with a closure do not record byte offsets.
    let log = DurableActionLog(
      sink: sink, header: header, nextSequence: sequence + 1,
      length: headerLine.count + 1 + entries.count, redactsSecrets: redactsSecrets,
      committer: committer)
    return ActionLogRecovery(
      state: state, log: log, sequence: sequence, snapshotSequence: decoded?.sequence,
      replayedCount: tail.entries.count, tornTail: nil, completedLastLine: false)
  }
}
