import Testing

@testable import Unidirectional

/// `AddressOnly` holding `(any Sendable)? = nil`: it must still make the reducers that
/// hold it address-only (not a plain value the compiler moves through registers), at the size
/// it had.
@Suite struct AddressOnlyTests {
  /// A trivial (POD) type is loadable: the field would no longer make its holder address-only.
  /// Its size is an existential container's, as with `any Sendable = ()`.
  @Test func theFieldIsStillAnExistentialContainerThatIsNotTrivial() {
    #expect(!_isPOD(AddressOnly.self))
    #expect(MemoryLayout<AddressOnly>.size == MemoryLayout<any Sendable>.size)
    #expect(MemoryLayout<AddressOnly>.alignment == MemoryLayout<any Sendable>.alignment)
    #expect(AddressOnly().box == nil)
  }
}
