-- wrk script: POST with a JSON body, rotating over the API keys given in the environment
-- (LW_KEYS, comma-separated) and client addresses (X-Forwarded-For 10.4.x.y, one per key):
-- many customers, as production sees them, not one address over its rate limit.
local keys = {}
for key in string.gmatch(os.getenv("LW_KEYS") or "", "[^,]+") do keys[#keys + 1] = key end
local header = os.getenv("LW_HEADER")
local body = os.getenv("LW_BODY")
local counter = 0

request = function()
  counter = counter + 1
  local headers = { ["Content-Type"] = "application/json" }
  if #keys > 0 then
    local n = counter % #keys
    headers[header] = keys[n + 1]
    headers["X-Forwarded-For"] = "10.4." .. math.floor(n / 256) % 256 .. "." .. n % 256
  end
  return wrk.format("POST", nil, headers, body)
end
