-- Claims every key of KEYS, one after the other: KEYS[i] for owner ARGV[3i - 1] for ARGV[3i] ms,
-- with fingerprint ARGV[3i + 1] ('' for none); ARGV[1] is this writer's grace in ms. Time is the
-- server's. The record is 'I|C <expires ms> <owner> [fp]', for a COMPLETED record that keeps a
-- result followed by a newline and the result's bytes, kept until expiry + its writer's grace by
-- its TTL: a record that still exists is inside its own grace, whatever the grace of the instance
-- claiming now. Returns one reply per key: {1, takeover} acquired, {2, late, fingerprint check, ms
-- past expiry[, result]} duplicate (ms past expiry negative while the retention runs), {3} busy.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local grace = tonumber(ARGV[1])

local function record(owner, lease, fp)
  local value = 'I ' .. string.format('%.0f', now + lease) .. ' ' .. owner
  if fp ~= '' then value = value .. ' ' .. fp end
  return value, string.format('%.0f', lease + grace)
end

local function claim(key, owner, lease, fp)
  local value, ttl = record(owner, lease, fp)
  -- One command for the common cases: a new key is written, an existing one only read.
  local v = redis.pcall('SET', key, value, 'NX', 'GET', 'PX', ttl)
  if type(v) == 'table' and v.err then
    return redis.error_reply('the inbox claim needs Redis 7.0 or newer (SET NX GET): ' .. v.err)
  end
  if not v then return {1, 0} end
  local result = nil
  local nl = string.find(v, '\n', 1, true)
  if nl then
    result = string.sub(v, nl + 1)
    v = string.sub(v, 1, nl - 1)
  end
  local state, exp, old, oldfp = string.match(v, '^(%a) (%d+) (%S+) ?(%S*)$')
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
  local takeover = 0
  if old == owner then
    if fp == '' and oldfp ~= '' then value, ttl = record(owner, lease, oldfp) end
  elseif now < exp then
    return {3}
  else
    takeover = 1
  end
  redis.call('SET', key, value, 'PX', ttl)
  return {1, takeover}
end

local replies = {}
for i, key in ipairs(KEYS) do
  replies[i] = claim(key, ARGV[3 * i - 1], tonumber(ARGV[3 * i]), ARGV[3 * i + 1])
end
return replies
