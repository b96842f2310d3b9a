import Foundation

extension PostgresActionLogDatabase {
  /// For tests of programs built on this database (the cluster's shards, run as processes):
  /// whether rounds check the fences of fenced logs, and a closure called by a flush that is
  /// about to commit a round, without the lock, with the names of the logs whose lines are
  /// staged (it may hold the round in flight).
  ///
  /// Never for production: without the fence check, a holder whose lease was granted to another
  /// commits its lines anyway (split brain). The test that proves the check is what stops it
  /// turns it off.
  ///
  /// - Parameters:
  ///   - checksFences: `false` only to prove that the check is what keeps a fenced holder out.
  ///   - beforeRound: Called before each round's transaction; `nil` for none.
  @_spi(Testing)
  public func setTestingHooks(
    checksFences: Bool, beforeRound: (@Sendable (_ staged: [String]) -> Void)?
  ) {
    withState { state in
      state.checksFences = checksFences
      state.beforeRound = beforeRound
    }
  }
}
