-- switch.lua for SwitchType=switch/lua: an example, and a harness for
-- trying the lifecycle out on a test cluster.
--
-- As it ships, it touches no interconnect. Every job that asks for a
-- network is accepted with a small dictionary, every call answers
-- "success", and each call logs one line ("switchlua: job_start(): JobId=..."
-- and so on), so the controller's and the nodes' logs show when each
-- function ran. Replace it with a script for your interconnect
-- (docs/switch-lua-script.md says what a script can use).
--
-- Directives (test clusters only). With ALLOW_DIRECTIVES = true a job
-- chooses how each call answers, through its --network value:
--   --network=switchlua:start_fail
--   --network=switchlua:complete_eagain=2,init_env
-- UNSAFE IN PRODUCTION: with directives on, any user can fail setups, keep
-- nodes held and drain nodes. A directive that fails the setup requeues a
-- batch job that may be requeued, which then fails again on every run:
-- submit such jobs with --no-requeue, or run them with srun.
--
--   job start:   start_fail (or defer)  return slurm.ERROR
--                start_decline          return slurm.SUCCESS, nil
--                start_error            raise a Lua error
--                start_exit             call os.exit()
--                start_crash            the process running the call kills
--                                       itself with SIGKILL (only where each
--                                       call has a process of its own)
--                start_rc=N             return N
--                start_text             return a string instead of a number
--                start_sleep=S          sleep S seconds first (timeouts)
--                start_big              a dictionary over the entry limit
--                start_deep             a dictionary over the depth limit
--   job complete: complete_fail, complete_error, complete_exit,
--                complete_rc=N, complete_text, complete_sleep=S as above;
--                complete_eagain=N      slurm.EAGAIN on the first N calls
--                                       for the run, then slurm.SUCCESS
--   step functions (the directives travel in the dictionary, so they reach
--   the nodes): preinit_fail, preinit_error, preinit_rc=N, init_fail,
--   init_error, init_rc=N, postfini_fail, postfini_error, postfini_rc=N;
--                init_env               step_init returns an environment
--                                       table with one entry of each kind
local ALLOW_DIRECTIVES = false

-- The answers of the two functions that take no job (no directive can
-- reach them; edit them here).
local BLOCK_JOB_COMPLETE = false
local SETUP_SPECIAL_STEPS = false

-- A Lua state lives for one call only, so complete_eagain counts its calls
-- in files: in $SWITCHLUA_STATE_DIR, else beside this script.
local function stateDir()
  local dir = os.getenv("SWITCHLUA_STATE_DIR")
  if dir and dir ~= "" then return dir end
  local source = debug.getinfo(1, "S").source
  return source:match("^@(.*)/[^/]*$") or "."
end

-- "switchlua:a,b=3" -> { a = true, b = "3" }; nothing without the prefix
-- or while directives are off.
local function directivesOf(network)
  local found = {}
  if not ALLOW_DIRECTIVES or type(network) ~= "string" then return found end
  local list = network:match("^switchlua:(.*)$")
  if not list then return found end
  for item in list:gmatch("[^,]+") do
    local name, value = item:match("^([%w_]+)=(.*)$")
    if name then found[name] = value else found[item] = true end
  end
  return found
end

-- The answer a directive asks for, in the order the checks are listed.
local function directedAnswer(d, prefix)
  if d[prefix .. "_sleep"] then os.execute("sleep " .. tonumber(d[prefix .. "_sleep"])) end
  if d[prefix .. "_fail"] then return true, slurm.ERROR end
  if d[prefix .. "_error"] then error("switchlua: " .. prefix .. "_error directive") end
  if d[prefix .. "_exit"] then os.exit(3) end
  if d[prefix .. "_rc"] then return true, tonumber(d[prefix .. "_rc"]) end
  if d[prefix .. "_text"] then return true, "directed" end
  return false
end

-- Calls so far for this run and function, counting this one.
local function countCall(sluid, what)
  local path = stateDir() .. "/switchlua-" .. what .. "-" .. sluid
  local file = io.open(path, "r")
  local calls = (file and tonumber(file:read("l"))) or 0
  if file then file:close() end
  calls = calls + 1
  file = io.open(path, "w")
  if file then
    file:write(calls, "\n")
    file:close()
  end
  return calls
end

local function nested(levels)
  local top = { level = 1 }
  local t = top
  for i = 2, levels do
    t.inner = { level = i }
    t = t.inner
  end
  return top
end

function slurm_switch_job_start(job)
  slurm.log_info("switchlua: job_start(): JobId=%d sluid=%s nodes=%s network=%s",
                 job.job_id, job.sluid, job.nodes, job.network)
  local d = directivesOf(job.network)
  if d.defer then d.start_fail = true end
  if d.start_crash then os.execute("kill -KILL $PPID") end
  local directed, rc = directedAnswer(d, "start")
  if directed then return rc, { directed = true } end
  if d.start_decline then return slurm.SUCCESS, nil end
  if d.start_big then
    local filler = {}
    for i = 1, 32768 do filler[i] = i end
    return slurm.SUCCESS, { filler = filler }
  end
  if d.start_deep then return slurm.SUCCESS, nested(17) end
  return slurm.SUCCESS, { network = job.network, nodes = job.nodes, sluid = job.sluid, directives = d }
end

function slurm_switch_job_complete(job, jobinfo)
  slurm.log_info("switchlua: job_complete(): JobId=%d sluid=%s nodes=%s jobinfo=%s",
                 job.job_id, job.sluid, job.nodes, jobinfo and "yes" or "nil")
  local d = directivesOf(job.network)
  local directed, rc = directedAnswer(d, "complete")
  if directed then return rc end
  local retries = tonumber(d.complete_eagain)
  if retries and countCall(job.sluid, "complete") <= retries then return slurm.EAGAIN end
  return slurm.SUCCESS
end

function slurm_switch_block_job_complete()
  slurm.log_info("switchlua: block_job_complete(): %s", tostring(BLOCK_JOB_COMPLETE))
  return BLOCK_JOB_COMPLETE
end

function slurm_switch_setup_special_steps()
  slurm.log_info("switchlua: setup_special_steps(): %s", tostring(SETUP_SPECIAL_STEPS))
  return SETUP_SPECIAL_STEPS
end

-- The step functions find the directives in the dictionary job_start kept.
local function stepDirectives(what, step, stepinfo)
  slurm.log_info("switchlua: %s(): JobId=%d sluid=%s stepinfo=%s", what, step.job_id, step.sluid,
                 stepinfo and "yes" or "nil")
  return (stepinfo and stepinfo.directives) or {}
end

function slurm_switch_step_preinit(step, stepinfo)
  local directed, rc = directedAnswer(stepDirectives("step_preinit", step, stepinfo), "preinit")
  if directed then return rc end
  return slurm.SUCCESS
end

function slurm_switch_step_init(step, stepinfo)
  local d = stepDirectives("step_init", step, stepinfo)
  local directed, rc = directedAnswer(d, "init")
  if directed then return rc end
  if d.init_env then
    return slurm.SUCCESS, {
      SWITCHLUA_TEXT = "set by switch.lua",
      SWITCHLUA_NUMBER = 6,
      SWITCHLUA_FLAG = true,
      SWITCHLUA_UNSET = false,
      SWITCHLUA_SKIPPED = {},
    }
  end
  return slurm.SUCCESS
end

function slurm_switch_step_postfini(step, stepinfo)
  local directed, rc = directedAnswer(stepDirectives("step_postfini", step, stepinfo), "postfini")
  if directed then return rc end
  return slurm.SUCCESS
end
