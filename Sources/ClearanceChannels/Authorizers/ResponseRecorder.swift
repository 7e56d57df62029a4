import Foundation
import Synchronization

/// Keeps the last response a transport returned, so a 401/403 that `AuthorizedClient` turns into
/// an error still reaches the app with its body.
final class ResponseRecorder: Sendable {
    private let state = Mutex<(status: Int, body: Data)?>(nil)
    var last: (status: Int, body: Data)? { state.withLock { $0 } }
    func record(status: Int, body: Data) { state.withLock { $0 = (status, body) } }
}
