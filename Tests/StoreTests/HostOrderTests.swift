import Foundation
import TestSupport
import XCTest
@testable import Store

/// A multi-host URL's hosts are tried with the one that took the last connection first and one
/// whose connection was lost last, so a host that stopped answering costs new connections nothing
/// once it lost one or another host answered.
final class HostOrderTests: XCTestCase {
    func test_oneHost_needsNoOrder() throws {
        XCTAssertNil(HostOrder(options: try LibPQConnectionInfo.parse("postgresql://u@db1:5432/catbird")))
        XCTAssertNil(HostOrder(options: [("host", "db1,db2"), ("port", "1,2,3")]), "ports that do not match the hosts")
    }

    func test_theHostThatAnswered_goesFirst_andOneLost_goesLast() throws {
        let order = try XCTUnwrap(HostOrder(options: try LibPQConnectionInfo.parse(
            "postgresql://u@db1:5001,db2:5002,db3:5003/catbird?target_session_attrs=read-write")))
        XCTAssertTrue(order.parameters.isEmpty, "the written order until another host answers")
        order.connected(host: "db1", port: "5001")
        XCTAssertTrue(order.parameters.isEmpty)
        order.lost(host: "db1", port: "5001")
        XCTAssertEqual(order.parameters.map { "\($0.0)=\($0.1)" }, ["host=db2,db3,db1", "port=5002,5003,5001"])
        order.connected(host: "db3", port: "5003")
        XCTAssertEqual(order.parameters.map { "\($0.0)=\($0.1)" }, ["host=db3,db2,db1", "port=5003,5002,5001"])
        order.connected(host: "elsewhere", port: "5001")
        order.lost(host: "db3", port: "1")
        XCTAssertEqual(order.parameters.map { "\($0.0)=\($0.1)" }, ["host=db3,db2,db1", "port=5003,5002,5001"],
                       "an unknown host or port changes nothing")
        order.connected(host: "db2", port: "5002")
        order.connected(host: "db1", port: "5001")
        order.lost(host: "db3", port: "5003")
        XCTAssertTrue(order.parameters.isEmpty, "back to the written order")
    }

    func test_onePortForAll_andAddresses_followTheirHosts() throws {
        let order = try XCTUnwrap(HostOrder(options: [("host", "a,b"), ("hostaddr", "10.0.0.1,10.0.0.2"), ("port", "5432")]))
        order.connected(host: "b", port: "5432")
        XCTAssertEqual(order.parameters.map { "\($0.0)=\($0.1)" }, ["host=b,a", "port=5432,5432", "hostaddr=10.0.0.2,10.0.0.1"])
        let same = try XCTUnwrap(HostOrder(options: [("host", "a,a"), ("port", "5432")]))
        same.connected(host: "a", port: "5432")
        XCTAssertTrue(same.parameters.isEmpty, "two entries alike: no way to tell which answered")
    }

    /// Against the test server: its address listed second, after a port nothing listens on. Once it
    /// answered, it is tried first.
    func test_pool_triesTheServerThatAnswered_first() throws {
        let base = try LibPQConnectionInfo.parse(try TestDatabase.baseURL())
        let host = try XCTUnwrap(base.last { $0.0 == "host" }?.1)
        let port = try XCTUnwrap(base.last { $0.0 == "port" }?.1)
        let pairs = base.filter { $0.0 != "host" && $0.0 != "port" } + [("host", "127.0.0.1,\(host)"), ("port", "1,\(port)")]
        let database = try Database(url: LibPQConnectionInfo.keyValueString(pairs), poolSize: 1)
        defer { database.close() }
        XCTAssertEqual(try database.query("SELECT 1 AS one")[0].int("one"), 1)
        XCTAssertEqual(database.settings.hostOrder?.parameters.map { "\($0.0)=\($0.1)" }, ["host=\(host),127.0.0.1", "port=\(port),1"])
    }
}
