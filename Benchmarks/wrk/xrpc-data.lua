-- Replays pre-generated XRPC calls written by `ds-bench prepare`, one line per request, each line
-- used once across all threads (thread i of n takes lines i, i+n, …): tokens are single-use.
-- N is wrk's -t (a thread starts before the next one is set up, so it cannot count them itself).
--   wrk -tN -s xrpc-data.lua URL -- N send DATA BODIES   lines "<body index> <msgId> <token>"
--   wrk -tN -s xrpc-data.lua URL -- N publish DATA       lines "<token> <JSON body>"
--   wrk -tN -s xrpc-data.lua URL -- N get DATA           lines "<path?query> <token>"
-- If a thread runs out of lines it starts over (the server then refuses the replays) and done()
-- says so, because the request rate would no longer be the server's.
local threads = {}
local count = 0

function setup(thread)
   count = count + 1
   thread:set("id", count)
   table.insert(threads, thread)
end

function init(args)
   local total, mode, data, bodies = tonumber(args[1]), args[2], args[3], args[4]
   requests = {}
   local prefixes = {}
   if mode == "send" then
      for line in io.lines(bodies) do prefixes[#prefixes + 1] = line end
   end
   local index = 0
   for line in io.lines(data) do
      if index % total == id - 1 then
         if mode == "send" then
            local body, msgId, token = line:match("^(%d+) (%S+) (%S+)$")
            requests[#requests + 1] = wrk.format("POST", nil,
               { ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json" },
               prefixes[tonumber(body)] .. msgId .. '"}')
         elseif mode == "get" then
            local path, token = line:match("^(%S+) (%S+)$")
            requests[#requests + 1] = wrk.format("GET", path, { ["Authorization"] = "Bearer " .. token })
         else
            local token, body = line:match("^(%S+) (.+)$")
            requests[#requests + 1] = wrk.format("POST", nil,
               { ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json" }, body)
         end
      end
      index = index + 1
   end
   cursor = 0
   wrapped = 0
end

function request()
   cursor = cursor + 1
   if cursor > #requests then
      cursor = 1
      wrapped = 1
   end
   return requests[cursor]
end

function done(summary, latency, requests)
   for _, thread in ipairs(threads) do
      if thread:get("wrapped") == 1 then
         print("WARNING: thread " .. thread:get("id") .. " ran out of prepared requests; the rate is not valid")
      end
   end
end
