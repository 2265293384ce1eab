-- wrk script: POST with a JSON body, rotating over the API keys given in the environment
-- (LW_KEYS, comma-separated): many customers, as production sees them.
local keys = {}
for key in string.gmatch(os.getenv("LW_KEYS") or "", "[^,]+") do keys[#keys + 1] = key end
local header = os.getenv("LW_HEADER")
local body = os.getenv("LW_BODY")
local counter = 0

request = function()
  counter = counter + 1
  local headers = { ["Content-Type"] = "application/json" }
  if #keys > 0 then headers[header] = keys[(counter % #keys) + 1] end
  return wrk.format("POST", nil, headers, body)
end
