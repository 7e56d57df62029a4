import Foundation

/// An invariant a fuzz target checks did not hold for an input.
package struct FuzzViolation: Error, CustomStringConvertible {
    package let description: String

    /// Throws when `condition` is false.
    package static func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(FuzzViolation) {
        guard condition else { throw FuzzViolation(description: message()) }
    }
}
