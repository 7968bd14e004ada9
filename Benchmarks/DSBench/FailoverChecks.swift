/// What `ds-bench failover` checks once the load stopped (Failover.swift lists them); each failed
/// check adds a line to `problems`.
struct FailoverChecks {
    private(set) var problems: [String] = []

    mutating func fail(_ problem: String) { problems.append(problem) }

    /// The conversation's log as getMessages served it.
    struct Stored {
        var bySeq: [Int64: (msgID: String, ciphertext: [UInt8]?)] = [:]
        var seqByMsgID: [String: Int64] = [:]
        var problems: [String] = []

        mutating func add(seq: Int64, msgID: String, ciphertext: [UInt8]?) {
            if bySeq[seq] != nil { problems.append("seq \(seq) served twice") }
            if let other = seqByMsgID[msgID] { problems.append("msgId \(msgID) stored twice, at seq \(other) and \(seq)") }
            bySeq[seq] = (msgID, ciphertext)
            seqByMsgID[msgID] = seq
        }
    }

    /// Every call answered within the hang limit; 2xx again within `recoverWithin`; no 5xx but
    /// 503, each with Retry-After; no message given up.
    mutating func calls(_ log: FailoverLoad.Log, killed: UInt64, firstOK: UInt64?, settings: FailoverRun.Settings) {
        let limit = UInt64(settings.hangLimit * 1e9)
        let hung = log.calls.filter { $0.answeredAt - $0.sentAt > limit }
        if !hung.isEmpty { fail("\(hung.count) calls took longer than \(settings.hangLimit) s") }
        if let firstOK {
            let seconds = Double(firstOK - killed) / 1e9
            if seconds > settings.recoverWithin {
                fail("the first 2xx came \(String(format: "%.1f", seconds)) s after the failure (limit \(settings.recoverWithin) s)")
            }
        } else {
            fail("no 2xx after the failure")
        }
        let errors = log.calls.filter { $0.status >= 500 && $0.status != 503 }
        if !errors.isEmpty { fail("\(errors.count) answers were 5xx other than 503: \(Set(errors.map(\.status)).sorted())") }
        let bare = log.calls.filter { $0.status == 503 && !$0.retryAfter }
        if !bare.isEmpty { fail("\(bare.count) 503 answers without Retry-After") }
        let unanswered = log.calls.filter { $0.status == 0 }
        if !unanswered.isEmpty { fail("\(unanswered.count) calls got no HTTP answer") }
        for reason in log.unacknowledged.prefix(5) { fail("message given up: \(reason)") }
        if log.unacknowledged.count > 5 { fail("… \(log.unacknowledged.count - 5) more messages given up") }
    }

    /// Every acknowledged message stored with its seq and bytes; the log's seqs dense.
    mutating func stored(_ stored: Stored, acks: [FailoverLoad.Ack]) {
        for problem in stored.problems { fail(problem) }
        let seqs = stored.bySeq.keys.sorted()
        if let first = seqs.first, seqs != Array(first...(first + Int64(seqs.count) - 1)) {
            fail("the stored seqs are not dense: \(seqs.count) seqs from \(first) to \(seqs.last!)")
        }
        if acks.isEmpty { fail("no message was acknowledged") }
        var lost = 0, moved = 0, altered = 0
        var acknowledgedSeqs: [Int64: String] = [:]
        for ack in acks {
            if let other = acknowledgedSeqs[ack.seq], other != ack.msgID { fail("seq \(ack.seq) acknowledged for \(other) and \(ack.msgID)") }
            acknowledgedSeqs[ack.seq] = ack.msgID
            guard let seq = stored.seqByMsgID[ack.msgID] else {
                lost += 1
                continue
            }
            if seq != ack.seq { moved += 1 }
            if stored.bySeq[seq]?.ciphertext != ack.ciphertext { altered += 1 }
        }
        if lost > 0 { fail("\(lost) of \(acks.count) acknowledged messages are not stored") }
        if moved > 0 { fail("\(moved) acknowledged messages are stored under another seq than acknowledged") }
        if altered > 0 { fail("\(altered) acknowledged messages are stored with other bytes") }
    }

    /// The subscriber received each acknowledged message exactly once, with its seq and bytes,
    /// and only messages that are stored.
    mutating func subscriber(_ subscriber: FailoverSubscriber, acks: [FailoverLoad.Ack], stored: Stored) {
        let state = subscriber.snapshot
        let name = "subscriber \(subscriber.user.did.rawValue.suffix(6)) on \(subscriber.node.baseURL)"
        for problem in state.problems.prefix(5) { fail("\(name): \(problem)") }
        var missing = 0, repeated = 0, wrong = 0, phantom = 0
        for ack in acks {
            guard let receipts = state.received[ack.msgID] else {
                missing += 1
                continue
            }
            if receipts.count > 1 { repeated += 1 }
            if receipts.contains(where: { $0.seq != ack.seq || $0.ciphertext != ack.ciphertext }) { wrong += 1 }
        }
        for (msgID, receipts) in state.received {
            guard let seq = stored.seqByMsgID[msgID] else {
                phantom += 1
                continue
            }
            if receipts.contains(where: { $0.seq != seq }) { wrong += 1 }
        }
        if missing > 0 { fail("\(name): \(missing) of \(acks.count) acknowledged messages never arrived") }
        if repeated > 0 { fail("\(name): \(repeated) messages arrived more than once") }
        if wrong > 0 { fail("\(name): \(wrong) messages arrived with another seq or other bytes") }
        if phantom > 0 { fail("\(name): \(phantom) messages arrived that are not stored") }
    }

    /// `_health` agreed with the database's state: 200 naming the primary, or 503 with Retry-After
    /// naming none; an outage seen after the failure when one was expected; 200 at the end.
    mutating func health(_ answers: [HealthWatch.Answer], killed: UInt64, expectOutage: Bool) {
        for answer in answers where !(answer.status == 200 && answer.database == "primary")
            && !(answer.status == 503 && answer.database == "unavailable" && answer.retryAfter) {
            fail("_health of \(answer.node) answered \(answer.status) with database \(answer.database ?? "?")")
            break
        }
        if expectOutage, !answers.contains(where: { $0.at >= killed && $0.status == 503 }) {
            fail("_health never answered 503 after the failure")
        }
        for node in Set(answers.map(\.node)) where answers.last(where: { $0.node == node })?.status != 200 {
            fail("_health of \(node) did not answer 200 at the end")
        }
    }

    /// One commit won (200), the other was refused (409), and the epoch moved by exactly one.
    mutating func race(_ results: [Int: (status: Int, unavailable: Int)], epoch: UInt64?, startEpoch: UInt64) {
        let statuses = results.values.map(\.status).sorted()
        if statuses != [200, 409] { fail("the racing commits were answered \(statuses), not one 200 and one 409") }
        if epoch != startEpoch + 1 { fail("the racing commits' conversation is at epoch \(epoch.map(String.init) ?? "?"), not \(startEpoch + 1)") }
    }
}
