/// Why a text frame could not be read.
enum FrameError: Error, Sendable, Equatable {
    case notJSONObject
    case missingEvent
}
