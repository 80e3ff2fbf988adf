-- wrk script: POST attempts with a random well-formed answer each time, spread over many tokens.
-- Counts responses by status class; the Python driver reads the summary printed by done().
local tokens = {}
local threads = {}
counts = {c2 = 0, c4 = 0, c5 = 0, created = 0}  -- global: done() reads it from each thread

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  for token in string.gmatch(os.getenv("GRADER_TOKENS") or "", "[^,]+") do
    table.insert(tokens, token)
  end
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
end

local function entry()
  return string.format("%.3f", (math.random() - 0.5) * 6)
end

function request()
  local body = string.format('{"answers": {"h": "[%s; %s; %s; %s]"}}', entry(), entry(), entry(), entry())
  local headers = {["Content-Type"] = "application/json",
                   ["Authorization"] = "Bearer " .. tokens[math.random(#tokens)]}
  return wrk.format("POST", "/api/v1/exercises/block-residual/attempts", headers, body)
end

function response(status, headers, body)
  if status == 201 then counts.created = counts.created + 1 end
  if status >= 500 then counts.c5 = counts.c5 + 1
  elseif status >= 400 then counts.c4 = counts.c4 + 1
  else counts.c2 = counts.c2 + 1 end
end

function done(summary, latency, requests)
  local total = {c2 = 0, c4 = 0, c5 = 0, created = 0}
  for _, thread in ipairs(threads) do
    local c = thread:get("counts")
    for k, v in pairs(c) do total[k] = total[k] + v end
  end
  io.write(string.format("RESULT requests=%d errors=%d rps=%.1f p50_ms=%.2f p99_ms=%.2f ok=%d client_errors=%d server_errors=%d created=%d\n",
    summary.requests, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    total.c2, total.c4, total.c5, total.created))
end
