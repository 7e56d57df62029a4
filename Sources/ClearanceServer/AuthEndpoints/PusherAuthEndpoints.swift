import ClearanceSigning
import ClearanceWire
import Hummingbird
import NIOCore

/// The two endpoints a Pusher client calls before it subscribes or signs in, as Hummingbird
/// routes any app can mount:
///
/// - `POST /pusher/auth`: form `socket_id` + `channel_name` → `{"auth":…}` (plus
///   `channel_data` for presence, `shared_secret` for encrypted channels); or the batched form
///   `channel_name[0]=…&channel_name[1]=…` → `{"<channel>":{"status":200,"data":{…}},
///   "<other>":{"status":403,"data":{…}}}` (the pusher-js-auth plugin's format);
/// - `POST /pusher/user-auth`: form `socket_id` → `{"auth":…,"user_data":…}`.
///
/// The app decides with one closure: given the caller (from ``CallerIdentifier``), the socket
/// id and the target, allow, allow as a user (required for presence and sign-in), or deny.
/// Bad input is 400 with `{"error":code,"message":…}`, a denial 403, never a 500 for a
/// client's mistake (see ``AuthEndpointError``).
///
/// ```swift
/// let endpoints = PusherAuthEndpoints(signer: signer, identifier: BearerTokenIdentifier { token in
///     await users.find(token: token)
/// }) { request in
///     guard let user = request.caller else { return .deny }
///     return .allowAs(AuthorizedUser(id: user.id, info: .object(["name": .string(user.name)])))
/// }
/// endpoints.register(on: router)
/// ```
///
/// For pages on other origins (pusher-js served from `https://app.example.com`, the endpoints
/// on `https://api.example.com`), pass `cors:` (``CORSSettings``): the endpoints then answer
/// preflights and add CORS headers for the allowed origins only (``AllowedOriginsCORS``).
public struct PusherAuthEndpoints<Identifier: CallerIdentifier>: Sendable {
    /// The app's decision for one request.
    public typealias Decide = @Sendable (AuthEndpointRequest<Identifier.Caller>) async throws -> AuthorizationDecision

    /// Signs the authorizations.
    public let signer: ChannelAuthSigner
    /// Says who is calling.
    public let identifier: Identifier
    /// The largest request body read, in bytes. Default 64 KiB.
    public let maxBodyBytes: Int
    /// How pages of other origins are answered; nil (the default): no CORS, so browsers let
    /// only pages of the endpoints' own origin read the answers.
    public let cors: CORSSettings?
    private let decide: Decide

    /// - Parameters:
    ///   - signer: The app's signer (key, secret, master key for encrypted channels).
    ///   - identifier: Finds the caller in the request.
    ///   - maxBodyBytes: The largest body read; larger ones get 413.
    ///   - cors: Cross-origin answers for pages of other origins (default none).
    ///   - decide: The app's decision. Throwing gives 500.
    public init(
        signer: ChannelAuthSigner,
        identifier: Identifier,
        maxBodyBytes: Int = 65_536,
        cors: CORSSettings? = nil,
        decide: @escaping Decide
    ) {
        self.signer = signer
        self.identifier = identifier
        self.maxBodyBytes = maxBodyBytes
        self.cors = cors
        self.decide = decide
    }

    /// Adds `POST channelAuthPath` and `POST userAuthPath` to `router`; with ``cors``, in a
    /// group with ``AllowedOriginsCORS``, and `OPTIONS` on both paths for the preflights.
    public func register<Router: RouterMethods>(
        on router: Router,
        channelAuthPath: RouterPath = "/pusher/auth",
        userAuthPath: RouterPath = "/pusher/user-auth"
    ) {
        guard let cors else {
            router.post(channelAuthPath) { request, _ in await self.channelAuthorization(request) }
            router.post(userAuthPath) { request, _ in await self.userAuthentication(request) }
            return
        }
        let group = router.group().add(middleware: AllowedOriginsCORS<Router.Context>(cors))
        group.post(channelAuthPath) { request, _ in await self.channelAuthorization(request) }
        group.post(userAuthPath) { request, _ in await self.userAuthentication(request) }
        for path in [channelAuthPath, userAuthPath] {
            // Reached without Origin only (the middleware answers preflights).
            group.on(path, method: .options) { _, _ in Response(status: .noContent, headers: [.allow: "POST, OPTIONS"]) }
        }
    }

    /// Answers a channel authorization request (single or batched).
    public func channelAuthorization(_ request: Request) async -> Response {
        do throws(AuthEndpointError) {
            let fields = try await readFields(request, requireChannel: true)
            let caller = try await identify(request)
            guard fields.isBatch else {
                let authorization = try await authorize(caller: caller, socketID: fields.socketID, channel: fields.channelNames[0])
                return JSONResponse.make(.ok, authorization.jsonString)
            }
            var body = JSONWriter(capacity: 160 * fields.channelNames.count)
            for channel in fields.channelNames {
                let entry: String
                do throws(AuthEndpointError) {
                    let authorization = try await authorize(caller: caller, socketID: fields.socketID, channel: channel)
                    entry = #"{"status":200,"data":"# + authorization.jsonString + "}"
                } catch {
                    var failure = JSONWriter()
                    failure.integer("status", Int(error.status.code))
                    failure.object("data") { data in
                        data.string("error", error.qualifiedCode)
                        data.string("message", error.message)
                    }
                    entry = failure.text
                }
                body.raw(channel, entry)
            }
            return JSONResponse.make(.ok, body.text)
        } catch {
            return error.response
        }
    }

    /// Answers a user authentication (sign-in) request.
    public func userAuthentication(_ request: Request) async -> Response {
        do throws(AuthEndpointError) {
            let fields = try await readFields(request, requireChannel: false)
            let caller = try await identify(request)
            let decision = try await decision(for: AuthEndpointRequest(caller: caller, socketID: fields.socketID, target: .userSignIn))
            guard case let .allowAs(user) = decision else {
                if decision == .deny { throw .forbidden }
                throw .decisionFailed("User sign-in was allowed without naming the user (use .allowAs).")
            }
            do {
                return JSONResponse.make(.ok, try signer.authenticateUser(socketID: fields.socketID, userData: user.userDataJSON).jsonString)
            } catch {
                throw .decisionFailed("The user is not usable for sign-in: \(error.message)")
            }
        } catch {
            return error.response
        }
    }

    // MARK: - Steps

    private func readFields(_ request: Request, requireChannel: Bool) async throws(AuthEndpointError) -> AuthRequestFields {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maxBodyBytes)
        } catch is NIOTooManyBytesError {
            throw .bodyTooLarge(limit: maxBodyBytes)
        } catch {
            throw .malformedBody
        }
        return try AuthRequestFields(
            body: String(buffer: buffer),
            contentType: request.headers[.contentType],
            requireChannel: requireChannel
        )
    }

    private func identify(_ request: Request) async throws(AuthEndpointError) -> Identifier.Caller? {
        do {
            return try await identifier.identify(request)
        } catch {
            switch error {
            case let .malformedCredentials(reason): throw .malformedCredentials(reason)
            case let .unavailable(reason): throw .identityUnavailable(reason)
            }
        }
    }

    private func decision(for request: AuthEndpointRequest<Identifier.Caller>) async throws(AuthEndpointError) -> AuthorizationDecision {
        do {
            return try await decide(request)
        } catch {
            throw .decisionFailed("The authorization decision failed.")
        }
    }

    private func authorize(caller: Identifier.Caller?, socketID: String, channel: String) async throws(AuthEndpointError) -> ChannelAuthorization {
        let kind: ChannelNameKind
        do {
            kind = try signer.limits.validate(channel)
        } catch {
            throw .invalidChannelName(error)
        }
        if kind == .serverToUser { throw .invalidChannelName(.serverToUserChannel) }
        if kind == .privateEncrypted, !signer.hasMasterKey { throw .unsupportedChannel(.missingMasterKey) }

        let decision = try await decision(for: AuthEndpointRequest(caller: caller, socketID: socketID, target: .channel(name: channel, kind: kind)))
        let channelData: String?
        switch decision {
        case .deny:
            throw .forbidden
        case .allow:
            guard kind != .presence else {
                throw .decisionFailed("A presence channel was allowed without naming the member (use .allowAs).")
            }
            channelData = nil
        case let .allowAs(user):
            channelData = kind == .presence ? user.channelDataJSON : nil
        }
        do {
            return try signer.authorizeChannel(socketID: socketID, channelName: channel, channelData: channelData)
        } catch {
            throw .decisionFailed("The authorization could not be signed: \(error.message)")
        }
    }
}
