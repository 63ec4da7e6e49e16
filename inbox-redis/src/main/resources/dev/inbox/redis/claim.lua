-- Claims KEYS[1] for owner ARGV[1] for ARGV[2] ms, with fingerprint ARGV[3] ('' for none);
-- ARGV[4] is this writer's grace in ms. Time is the server's. The record is
-- 'I|C <expires ms> <owner> [fp]', for a COMPLETED record that keeps a result followed by a
-- newline and the result's bytes, kept until expiry + its writer's grace by its TTL: a record that
-- still exists is inside its own grace, whatever the grace of the instance claiming now.
-- Returns {1, takeover} acquired, {2, late, fingerprint check, ms past expiry[, result]} duplicate
-- (ms past expiry negative while the retention runs), {3} busy.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[2])
local grace = tonumber(ARGV[4])
local fp = ARGV[3]
local takeover = 0
local v = redis.call('GET', KEYS[1])
if v then
  local result = nil
  local nl = string.find(v, '\n', 1, true)
  if nl then
    result = string.sub(v, nl + 1)
    v = string.sub(v, 1, nl - 1)
  end
  local state, exp, owner, oldfp = string.match(v, '^(%a) (%d+) (%S+) ?(%S*)$')
  exp = tonumber(exp)
  if state == 'C' then
    local check = 0
    if oldfp ~= '' and fp ~= '' then
      if oldfp == fp then check = 1 else check = 2 end
    end
    local late = 0
    if now >= exp then late = 1 end
    if result then return {2, late, check, now - exp, result} end
    return {2, late, check, now - exp}
  end
  if owner == ARGV[1] then
    if fp == '' then fp = oldfp end
  elseif now < exp then
    return {3}
  else
    takeover = 1
  end
end
local value = 'I ' .. string.format('%.0f', now + lease) .. ' ' .. ARGV[1]
if fp ~= '' then value = value .. ' ' .. fp end
redis.call('SET', KEYS[1], value, 'PX', string.format('%.0f', lease + grace))
return {1, takeover}
