// `mls-bench [crypto|group]…`: MLS operations per second, release build (`make bench`).
let selected = Set(CommandLine.arguments.dropFirst())
if selected.isEmpty || selected.contains("crypto") {
    try CryptoBench.run()
}
if selected.isEmpty || selected.contains("group") {
    try GroupBench.run()
}
if selected.contains("group-profile") {
    try GroupBench.profile()
}
