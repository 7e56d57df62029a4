import Hummingbird

/// Records the path of every request that reaches a ``HostileOpenIDProvider``, in order
/// (``HostileOpenIDProvider/Counters/requests``), so a test can tell what a client asked first.
struct HostileRequestLog<Context: RequestContext>: RouterMiddleware {
    let provider: HostileOpenIDProvider

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        provider.record(request.uri.path)
        return try await next(request, context)
    }
}
