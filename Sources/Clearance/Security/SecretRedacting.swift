/// A value that holds a secret and shows only its `description` (which must not contain the
/// secret) in every text form: `debugDescription`, and a mirror whose one child is that
/// description, so `dump()`, `print(reflecting:)` and debuggers show no secret either.
///
/// Conform, write `description`, and the rest comes from here.
public protocol SecretRedacting: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {}

extension SecretRedacting {
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["redacted": description], displayStyle: .struct) }
}
