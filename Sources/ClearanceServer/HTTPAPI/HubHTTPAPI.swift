import ClearanceSigning
import ClearanceWire
import Foundation
import Hummingbird
import Logging
import NIOCore

/// The Pusher HTTP API the official server libraries call, each request verified with the
/// app's ``RESTRequestVerifier`` (key, signature, 600 s timestamp window, `body_md5`):
///
/// - `POST /apps/{id}/events`: one event to one or many channels, optionally excluding a socket;
/// - `POST /apps/{id}/batch_events`: several events;
/// - `GET /apps/{id}/channels` (`filter_by_prefix`, `info=user_count` for presence prefixes);
/// - `GET /apps/{id}/channels/{name}` (`info=subscription_count,user_count`);
/// - `GET /apps/{id}/channels/{name}/users` (presence channels);
/// - `POST /apps/{id}/users/{user_id}/terminate_connections`: closes every connection signed in
///   as the user, on every node of a cluster, with 4009 (body `{}`, answers `{}`). Also at
///   `POST /users/{user_id}/terminate_connections`, the path the official Python library (3.3.4)
///   sends, without `/apps/{id}`: the app is then the one whose key signed the request.
///
/// Every refusal is a JSON ``HTTPAPIError`` with a 4xx status. An app's
/// `backendEventsPerSecond` and `readRequestsPerSecond` (``HubAppLimits``) answer past them 429
/// with `Retry-After: 1`. Handlers get the
/// ``VerifiedRESTRequest`` the verifier returns: the parameters and body exactly as signed, read
/// the one way the signature reads them (a name not in lower case, or a value holding `&` once
/// decoded, is a 400 before the signature is even checked).
struct HubHTTPAPI: Sendable {
    /// What the HTTP API uses of the hub, and nothing else (the hub makes it: ``Hub/httpAPIDependencies``).
    struct Dependencies: Sendable {
        /// The apps served now (a reload swaps them).
        let apps: @Sendable () -> HubAppTable
        /// Who is subscribed and present: what the reads answer and where events go.
        let channels: HubChannelState
        /// The hub's limits (a reload does not change them).
        let limits: HubLimits
        /// Each app's request rates.
        let rates: AppRequestRates
        /// Where rate-limited requests are counted.
        let counters: HubCounters
        /// `clearance_http_requests_total`, per app.
        let metrics: HubMetrics
        /// Requests that failed verification, throttled per app.
        let apiRejectionLog: ThrottledLog
        /// The hub's clock.
        let clock: any HubClock
        let logger: Logger
        /// Closes this node's connections of an app's user and keeps the user out for the grace
        /// period (``Hub/closeUserConnections(appID:userID:gracePeriod:)``).
        let closeUserConnections: @Sendable (_ appID: String, _ userID: String) async -> Void
    }

    let hub: Dependencies

    func register(on router: Router<BasicRequestContext>) {
        router.post("/apps/{appID}/events") { request, context in
            await signed(request, context) { (app, verified) throws(HTTPAPIError) in try await events(app: app, body: verified.body) }
        }
        router.post("/apps/{appID}/batch_events") { request, context in
            await signed(request, context) { (app, verified) throws(HTTPAPIError) in try await batchEvents(app: app, body: verified.body) }
        }
        router.get("/apps/{appID}/channels") { request, context in
            await signed(request, context) { (app, verified) throws(HTTPAPIError) in try await channels(app: app, query: verified.parameters) }
        }
        router.get("/apps/{appID}/channels/{channelName}") { request, context in
            await signed(request, context) { (app, verified) throws(HTTPAPIError) in
                try await channel(app: app, name: try channelName(context), query: verified.parameters)
            }
        }
        router.get("/apps/{appID}/channels/{channelName}/users") { request, context in
            await signed(request, context) { (app, _) throws(HTTPAPIError) in
                try await users(app: app, channel: try channelName(context))
            }
        }
        router.post("/apps/{appID}/users/{userID}/terminate_connections") { request, context in
            await signed(request, context) { (app, verified) throws(HTTPAPIError) in
                try await terminateConnections(app: app, userID: try userID(context), body: verified.body)
            }
        }
        router.post("/users/{userID}/terminate_connections") { request, context in
            await signed(request, context, app: appSigning(request)) { (app, verified) throws(HTTPAPIError) in
                try await terminateConnections(app: app, userID: try userID(context), body: verified.body)
            }
        }
    }

    // MARK: - Verification

    /// Verifies the request as signed by `app` (by default the app of the path's `{appID}`), then
    /// hands the handler what was verified; counts the answer (`clearance_http_requests_total`,
    /// under the app's id, or none for a path naming no app: the label stays bounded).
    private func signed(
        _ request: Request,
        _ context: BasicRequestContext,
        app named: HubApp? = nil,
        handler: (HubApp, VerifiedRESTRequest) async throws(HTTPAPIError) -> Response
    ) async -> Response {
        let app = named ?? context.parameters.get("appID").flatMap { hub.apps().byID[$0] }
        let response = await answer(request, app: app, handler: handler)
        hub.metrics.httpRequest(appID: app?.id, status: response.status.code)
        return response
    }

    /// Checks the head first (the app, enabled, then key, timestamp and signature, which cover
    /// the query), so that a forged or unsigned request is answered at once, without its body
    /// being read or waited for; then reads the body, and checks it, and the request again, with
    /// the app as it is then (a reload that removed, disabled, re-keyed or gave it a new secret
    /// while the body arrived is answered 401 or 403).
    private func answer(
        _ request: Request,
        app: HubApp?,
        handler: (HubApp, VerifiedRESTRequest) async throws(HTTPAPIError) -> Response
    ) async -> Response {
        do throws(HTTPAPIError) {
            guard let app else { throw .unknownApp }
            guard app.configuration.enabled else { throw .appDisabled }
            let method = request.method.rawValue, path = request.uri.path
            let parameters: RESTRequestParameters
            do {
                parameters = try RESTRequestParameters(percentEncodedQuery: request.uri.query ?? "")
                try app.verifier.verifyHead(method: method, path: path, parameters: parameters, hasBody: Self.declaresBody(request))
            } catch {
                throw rejected(error, app: app)
            }
            hub.logger.trace("hub.api.head.verified", metadata: ["app_id": "\(app.id)", "path": "\(path)"])
            let body: Data
            do {
                var buffer = try await request.body.collect(upTo: hub.limits.httpAPI.maxHTTPBodyBytes)
                body = buffer.readData(length: buffer.readableBytes) ?? Data()
            } catch {
                throw .bodyTooLarge(limit: hub.limits.httpAPI.maxHTTPBodyBytes)
            }
            // The app as it is now: a reload may have changed it while the body arrived.
            guard let current = hub.apps().byID[app.id], current.key == app.key else { throw .authentication(.unknownKey) }
            guard current.configuration.enabled else { throw .appDisabled }
            let verified: VerifiedRESTRequest
            do {
                // The head's check holds unless the secret changed meanwhile: then it is made again.
                if current.configuration.secret != app.configuration.secret {
                    try current.verifier.verifyHead(method: method, path: path, parameters: parameters, hasBody: !body.isEmpty)
                }
                verified = try current.verifier.verifyBody(parameters: parameters, body: body)
            } catch {
                throw rejected(error, app: current)
            }
            return try await handler(current, verified)
        } catch {
            return error.response
        }
    }

    /// A request that failed verification: logged (throttled per app: forged requests come in
    /// floods), answered 400 or 401.
    private func rejected(_ error: SigningError, app: HubApp) -> HTTPAPIError {
        hub.apiRejectionLog.record(appID: app.id, ["reason": "\(error.qualifiedCode)"])
        return HTTPAPIError(verifying: error)
    }

    /// Whether the request's head announces a body: a `Content-Length` above 0, or a body sent
    /// in chunks.
    private static func declaresBody(_ request: Request) -> Bool {
        if let length = request.headers[.contentLength], let bytes = Int(length) { return bytes > 0 }
        return request.headers[.transferEncoding] != nil
    }

    private func channelName(_ context: BasicRequestContext) throws(HTTPAPIError) -> String {
        guard let raw = context.parameters.get("channelName"), let name = PercentEncoding.decode(raw) else {
            throw .invalidChannel(.emptyChannelName)
        }
        return name
    }

    /// The app whose key is the request's `auth_key` (for a path without `/apps/{id}`); the
    /// signature is then checked as for any other request of that app.
    private func appSigning(_ request: Request) -> HubApp? {
        let query = request.uri.query ?? ""
        for pair in query.split(separator: "&") where pair.hasPrefix("auth_key=") {
            return PercentEncoding.decode(String(pair.dropFirst("auth_key=".count))).flatMap { hub.apps().byKey[$0] }
        }
        return nil
    }

    /// The user id of the path: 1 to 128 characters, as in presence channel data and sign-ins.
    private func userID(_ context: BasicRequestContext) throws(HTTPAPIError) -> String {
        guard let raw = context.parameters.get("userID"), let id = PercentEncoding.decode(raw), !id.isEmpty,
              id.utf16.count <= PresenceChannelData.maxUserIDLength
        else {
            throw .invalidField("user_id", reason: "must be 1 to \(PresenceChannelData.maxUserIDLength) characters.")
        }
        return id
    }

    private func jsonObject(_ body: Data) throws(HTTPAPIError) -> [String: JSONValue] {
        guard let text = String(data: body, encoding: .utf8) else { throw .malformedJSON }
        do {
            guard let members = try JSONScanner.parse(text).objectValue else { throw HTTPAPIError.malformedJSON }
            return members
        } catch {
            throw .malformedJSON
        }
    }

    // MARK: - Endpoints

    private func events(app: HubApp, body: Data) async throws(HTTPAPIError) -> Response {
        let event = try TriggerEvent(jsonObject(body), limits: hub.limits, channelNames: app.signer.limits)
        try spend(event.channels.count, .backendEvents, app: app)
        let serials = try await hub.channels.trigger(event, appID: app.id)
        guard !event.info.isEmpty || !serials.isEmpty else { return JSONResponse.make(.ok, "{}") }
        var channels = JSONWriter()
        for name in event.channels where !event.info.isEmpty || serials[name] != nil {
            channels.raw(name, await attributes(app: app, channel: name, info: event.info, serial: serials[name]))
        }
        var response = JSONWriter()
        response.raw("channels", channels.text)
        return JSONResponse.make(.ok, response.text)
    }

    private func batchEvents(app: HubApp, body: Data) async throws(HTTPAPIError) -> Response {
        guard case let .array(items)? = try jsonObject(body)["batch"] else { throw .missingField("batch") }
        guard !items.isEmpty, items.count <= hub.limits.httpAPI.maxEventsPerBatch else {
            throw .invalidField("batch", reason: "must hold 1 to \(hub.limits.httpAPI.maxEventsPerBatch) events.")
        }
        var events: [TriggerEvent] = []
        for item in items {
            guard let members = item.objectValue else { throw .invalidField("batch", reason: "must hold objects.") }
            let event = try TriggerEvent(members, limits: hub.limits, channelNames: app.signer.limits)
            guard event.channels.count == 1 else { throw .invalidField("batch", reason: "events name exactly one 'channel'.") }
            events.append(event)
        }
        try spend(events.count, .backendEvents, app: app)
        var serials: [Int?] = []
        for event in events {
            serials.append(try await hub.channels.trigger(event, appID: app.id)[event.channels[0]])
        }
        guard events.contains(where: { !$0.info.isEmpty }) || serials.contains(where: { $0 != nil }) else { return JSONResponse.make(.ok, "{}") }
        var list: [String] = []
        for (event, serial) in zip(events, serials) {
            list.append(await attributes(app: app, channel: event.channels[0], info: event.info, serial: serial))
        }
        var response = JSONWriter()
        response.raw("batch", "[" + list.joined(separator: ",") + "]")
        return JSONResponse.make(.ok, response.text)
    }

    /// Closes the user's connections here, then has every other node close theirs. The body is
    /// `{}` (an empty body is taken as one, as the official libraries may send none).
    private func terminateConnections(app: HubApp, userID: String, body: Data) async throws(HTTPAPIError) -> Response {
        if !body.isEmpty { _ = try jsonObject(body) }
        try spend(1, .backendEvents, app: app)
        await hub.closeUserConnections(app.id, userID)
        await hub.channels.relayUserTermination(UserTermination(appID: app.id, userID: userID, gracePeriod: hub.limits.connections.terminationGracePeriod))
        return JSONResponse.make(.ok, "{}")
    }

    private func channels(app: HubApp, query: RESTRequestParameters) async throws(HTTPAPIError) -> Response {
        try spend(1, .readRequests, app: app)
        let prefix = query["filter_by_prefix"] ?? ""
        let info = try infoAttributes(query["info"], allowed: ["user_count"])
        if info.contains("user_count"), !prefix.hasPrefix(ChannelNameKind.presencePrefix) {
            throw .invalidInfo("info=user_count needs filter_by_prefix=presence-.")
        }
        var channels = JSONWriter()
        for snapshot in await hub.channels.channels(appID: app.id) where snapshot.name.hasPrefix(prefix) {
            var attributes = JSONWriter()
            if info.contains("user_count"), let users = snapshot.userCount { attributes.integer("user_count", users) }
            channels.raw(snapshot.name, attributes.text)
        }
        var response = JSONWriter()
        response.raw("channels", channels.text)
        return JSONResponse.make(.ok, response.text)
    }

    private func channel(app: HubApp, name: String, query: RESTRequestParameters) async throws(HTTPAPIError) -> Response {
        try spend(1, .readRequests, app: app)
        let kind = try validate(name, app: app)
        let info = try infoAttributes(query["info"], allowed: ["subscription_count", "user_count"])
        if info.contains("user_count"), kind != .presence {
            throw .invalidInfo("info=user_count is only available for presence channels.")
        }
        let snapshot = await hub.channels.channel(appID: app.id, name: name)
        var response = JSONWriter()
        response.raw("occupied", snapshot == nil ? "false" : "true")
        if info.contains("user_count") { response.integer("user_count", snapshot?.userCount ?? 0) }
        if info.contains("subscription_count") { response.integer("subscription_count", snapshot?.subscriptionCount ?? 0) }
        return JSONResponse.make(.ok, response.text)
    }

    private func users(app: HubApp, channel: String) async throws(HTTPAPIError) -> Response {
        try spend(1, .readRequests, app: app)
        guard try validate(channel, app: app) == .presence else {
            throw .invalidField("channel", reason: "must be a presence channel.")
        }
        let ids = await hub.channels.presenceMembers(appID: app.id, channel: channel).map { member in
            var user = JSONWriter()
            user.string("id", member.id)
            return user.text
        }
        var response = JSONWriter()
        response.raw("users", "[" + ids.joined(separator: ",") + "]")
        return JSONResponse.make(.ok, response.text)
    }

    // MARK: - Helpers

    /// Takes `count` from the app's rate of `kind` (``HubAppLimits``), or refuses the request
    /// with 429 (nothing of it is done). Only verified requests get here: a forged one never
    /// spends an app's budget.
    private func spend(_ count: Int, _ kind: AppRequestRates.Kind, app: HubApp) throws(HTTPAPIError) {
        let limit = kind == .backendEvents ? app.limits.backendEventsPerSecond : app.limits.readRequestsPerSecond
        guard let limit, !hub.rates.take(count, kind, appID: app.id, perSecond: limit, at: hub.clock.now) else { return }
        hub.counters.increment(.httpRequestsRateLimited)
        throw .rateLimited(what: kind == .backendEvents ? "events" : "read requests", limit: limit)
    }

    private func validate(_ channel: String, app: HubApp) throws(HTTPAPIError) -> ChannelNameKind {
        do {
            return try app.signer.limits.validate(channel)
        } catch {
            throw .invalidChannel(error)
        }
    }

    private func infoAttributes(_ text: String?, allowed: Set<String>) throws(HTTPAPIError) -> Set<String> {
        guard let text, !text.isEmpty else { return [] }
        let attributes = Set(text.split(separator: ",").map(String.init))
        guard attributes.isSubset(of: allowed) else {
            throw .invalidInfo("info may only contain \(allowed.sorted().joined(separator: ", ")).")
        }
        return attributes
    }

    /// The `info` attributes asked for the channel, and the `serial` its history gave the event.
    private func attributes(app: HubApp, channel: String, info: Set<String>, serial: Int? = nil) async -> String {
        var attributes = JSONWriter()
        if let serial { attributes.integer("serial", serial) }
        guard !info.isEmpty else { return attributes.text }
        let snapshot = await hub.channels.channel(appID: app.id, name: channel)
        if info.contains("subscription_count") { attributes.integer("subscription_count", snapshot?.subscriptionCount ?? 0) }
        if info.contains("user_count"), ChannelNameKind(channelName: channel) == .presence {
            attributes.integer("user_count", snapshot?.userCount ?? 0)
        }
        return attributes.text
    }
}
