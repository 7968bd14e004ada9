import COpenSSL
import CSodium

/// Owns an `EVP_PKEY`. The key is never modified after creation, and OpenSSL 3 allows a key to be
/// used by several threads at once for signing, verifying and derivation.
final class PKeyHandle: @unchecked Sendable {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { EVP_PKEY_free(pointer) }
}

/// A read-only OpenSSL object fetched once and shared (`EVP_MD`, `EVP_CIPHER`, `EC_GROUP`).
final class SharedHandle: @unchecked Sendable {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}

enum OpenSSL {
    /// The error for a failed call, with OpenSSL's queued error code; clears this thread's queue so a
    /// stale error never leaks into the next report.
    static func failure(_ function: String) -> CryptoError {
        let code = ERR_get_error()
        ERR_clear_error()
        return .internal("\(function) failed (OpenSSL error 0x\(String(code, radix: 16)))")
    }

    /// Discards queued errors after a failure that is reported as bad input, not as `internal`.
    static func clearErrors() { ERR_clear_error() }

    /// Builds an `EVP_PKEY` of `type` (e.g. "EC") from parameters; `selection` says whether it holds a
    /// public key or a key pair.
    static func makeKey(
        type: String, selection: Int32, _ push: (OpaquePointer) -> Bool
    ) throws(CryptoError) -> PKeyHandle {
        guard let builder = OSSL_PARAM_BLD_new() else { throw failure("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        guard push(builder) else { throw failure("OSSL_PARAM_BLD_push") }
        guard let params = OSSL_PARAM_BLD_to_param(builder) else { throw failure("OSSL_PARAM_BLD_to_param") }
        defer { OSSL_PARAM_free(params) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else {
            throw failure("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_fromdata_init(context) == 1 else { throw failure("EVP_PKEY_fromdata_init") }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata(context, &key, selection, params) == 1, let key else {
            clearErrors()
            throw .invalidKey
        }
        return PKeyHandle(key)
    }

    /// A raw X25519/X448/Ed25519/Ed448 key from its RFC 7748 / RFC 8032 encoding.
    static func rawKey(type: Int32, bytes: [UInt8], isPrivate: Bool) throws(CryptoError) -> PKeyHandle {
        let key = bytes.withUnsafeBufferPointer { buffer in
            isPrivate
                ? EVP_PKEY_new_raw_private_key(type, nil, buffer.baseAddress, buffer.count)
                : EVP_PKEY_new_raw_public_key(type, nil, buffer.baseAddress, buffer.count)
        }
        guard let key else {
            clearErrors()
            throw .invalidKey
        }
        return PKeyHandle(key)
    }

    /// The raw encoding of a key made by `rawKey`.
    static func rawBytes(of key: PKeyHandle, size: Int, isPrivate: Bool) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: size)
        var length = size
        let ok = out.withUnsafeMutableBufferPointer { buffer in
            isPrivate
                ? EVP_PKEY_get_raw_private_key(key.pointer, buffer.baseAddress, &length)
                : EVP_PKEY_get_raw_public_key(key.pointer, buffer.baseAddress, &length)
        }
        guard ok == 1, length == size else { throw failure("EVP_PKEY_get_raw_key") }
        return out
    }

    /// A fresh raw-encoded key pair of `type` (X448, Ed448).
    static func generateRaw(type: String) throws(CryptoError) -> PKeyHandle {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else {
            throw failure("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_generate(context, &key) == 1, let key else {
            throw failure("EVP_PKEY_generate")
        }
        return PKeyHandle(key)
    }

    /// Diffie-Hellman between a private key and a peer public key of the same type.
    static func derive(privateKey: PKeyHandle, peer: PKeyHandle) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, privateKey.pointer, nil) else {
            throw failure("EVP_PKEY_CTX_new_from_pkey")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_derive_init(context) == 1 else { throw failure("EVP_PKEY_derive_init") }
        guard EVP_PKEY_derive_set_peer(context, peer.pointer) == 1 else {
            clearErrors()
            throw .invalidKey
        }
        var length = 0
        guard EVP_PKEY_derive(context, nil, &length) == 1 else { throw failure("EVP_PKEY_derive") }
        var out = [UInt8](repeating: 0, count: length)
        let ok = out.withUnsafeMutableBufferPointer { EVP_PKEY_derive(context, $0.baseAddress, &length) }
        guard ok == 1 else {
            clearErrors()
            throw .invalidSharedSecret
        }
        return Array(out.prefix(length))
    }
}

/// libsodium must be initialised once before use; `sodium_init` is idempotent and thread-safe.
enum Sodium {
    static let initialized: Bool = sodium_init() >= 0

    static func ensureInitialized() {
        precondition(initialized, "sodium_init failed")
    }
}
