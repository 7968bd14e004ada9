// `mls-bench [crypto|group|xwing|sealed]…`: MLS operations per second, release build (`make bench`).
let selected = Set(CommandLine.arguments.dropFirst())
if selected.isEmpty || selected.contains("crypto") {
    try CryptoBench.run()
}
if selected.isEmpty || selected.contains("group") {
    try GroupBench.run()
}
if selected.contains("sealed") {
    for n in [100, 1000] { try GroupBench.sealedVerify(members: n) }
}
if selected.isEmpty || selected.contains("xwing") {
    try XWingBench.run()
}
if CommandLine.arguments.dropFirst().first == "group-profile" {
    let rest = Array(CommandLine.arguments.dropFirst(2))
    try GroupBench.profile(phase: rest.first ?? "public", members: rest.count > 1 ? Int(rest[1]) ?? 100 : 100)
}
