/// `blue.catbird.mls.subscribeConvoEvents`: a WebSocket (see `EventService.upgrade`). The method
/// entry routes the upgrade to a worker thread and answers a plain GET with 400.
enum SubscribeConvoEvents {
    static func method() -> XRPCMethod {
        XRPCMethod.unauthenticated(EventService.subscribeNSID, .query, maxBodySize: 0) { _ in
            throw XRPCError.invalidRequest("subscribeConvoEvents is a WebSocket endpoint: send an Upgrade request")
        }
    }
}
