// What the effect runtime asks of an effect before it starts it.
extension Effect {
  /// Whether the effect is made only of parts that complete synchronously.
  var isSynchronous: Bool {
    switch operation {
    case .none, .send, .cancel, .issue, .cancelMatching, .watch: true
    case .throttle: false
    case .run: false
    case .merge(let effects), .concatenate(let effects): effects.allSatisfy(\.isSynchronous)
    case .cancellable(_, _, let inner): inner.isSynchronous
    }
  }

  /// Where a lone `.run` was created, for reports about the task that runs it.
  var site: EffectSite? {
    if case .run(let run) = operation { return EffectSite(fileID: run.fileID, line: run.line) }
    return nil
  }

  /// The priority of a lone `.run`, used for the task that runs it.
  var priority: TaskPriority? {
    if case .run(let run) = operation { return run.priority }
    return nil
  }
}
