/// Errors the tests throw.
struct Boom: Error {}
struct ProviderDown: Error {}
