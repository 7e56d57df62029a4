/// Why a text frame could not be read.
package enum FrameError: Error, Sendable, Equatable {
    case notJSONObject
    case missingEvent
}
