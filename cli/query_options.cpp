#include "cli/query_options.h"

#include "cli/arg_parsing.h"

namespace gantry::cli {

void declareSqueueOptions(CLI::App& app, SqueueOptions& options) {
  declareHelpFlags(app, options.help);
  app.add_flag("-h,--noheader", options.noHeader, "omit the header line");
  app.add_option("-j,--jobs", options.jobs, "comma-separated job ids")->type_name("job(s)");
  app.add_option("-u,--user", options.users, "comma-separated user names")->type_name("user_name(s)");
  app.add_flag("--me", options.me, "only my jobs (same as -u with my user name)");
  app.add_option("-t,--states", options.states, "comma-separated states (PD,R,... or all)")->type_name("state(s)");
  app.add_option("-p,--partition", options.partitions, "comma-separated partitions")->type_name("partition(s)");
  app.add_option("-o,--format", options.format, "format string of %codes")->type_name("format");
  app.add_option("-O,--Format", options.longFormat, "comma-separated field names")->type_name("field(s)");
  options.steps = app.add_option("-s,--steps", options.stepList,
                                 "show running job steps instead of jobs; optionally only "
                                 "these (comma-separated <jobid>.<stepid>)")
                      ->expected(0, 1)
                      ->type_name("step(s)");
  app.add_option("-n,--name", options.names, "comma-separated job names")->type_name("job_name(s)");
  app.add_option("-A,--account", options.accounts, "comma-separated accounts")->type_name("account(s)");
  app.add_option("-w,--nodelist", options.nodes, "only jobs holding one of these nodes")->type_name("hostlist");
  app.add_flag("-l,--long", options.longList, "long report: state and time limit, with the date first");
  app.add_flag("--start", options.start,
               "pending jobs and their expected start time, earliest first (N/A: not planned yet)");
  app.add_flag("-r,--array", options.arrays, "one line per array task (pending tasks of an array are otherwise one line)");
  app.add_flag("--json", options.json, "print JSON");
  addConfDirOption(app, options.confDir);
}

void declareSinfoOptions(CLI::App& app, SinfoOptions& options) {
  declareHelpFlags(app, options.help);
  app.add_flag("-N,--Node", options.nodeView, "one line per node");
  app.add_flag("-R,--list-reasons", options.reasons, "list reasons nodes are down or drained");
  app.add_flag("-h,--noheader", options.noHeader, "omit the header line");
  app.add_flag("-s,--summarize", options.summarize,
               "one line per partition with its nodes allocated/idle/other/total (not with -N or -R)");
  app.add_flag("-l,--long", options.longList, "more columns, with the date first");
  app.add_option("-o,--format", options.format, "format string of %codes")->type_name("format");
  app.add_option("-O,--Format", options.longFormat, "comma-separated field names")->type_name("field(s)");
  app.add_option("-p,--partition", options.partitions, "comma-separated partitions")->type_name("partition(s)");
  app.add_option("-t,--states", options.states, "node states to list (idle,mix,drain,...)")->type_name("state(s)");
  app.add_option("-n,--nodes", options.nodeNames, "nodes to list (a hostlist)")->type_name("nodes");
  app.add_flag("-r,--responding", options.responding, "only nodes that respond");
  app.add_flag("-d,--dead", options.dead, "only nodes that do not respond");
  // Rows already group only nodes with equal values, which is what -e asks;
  // Gantry has no hidden partitions for -a to reveal.
  app.add_flag("-e,--exact", options.exact, "group only nodes with equal CPUs, memory and disk (always so)");
  app.add_flag("-a,--all", options.all, "list every partition (always so)");
  app.add_flag("--json", options.json, "print JSON");
  addConfDirOption(app, options.confDir);
}

void declareScancelOptions(CLI::App& app, ScancelOptions& options) {
  declareHelpFlags(app, options.help);
  app.add_option("jobid", options.jobIds, "job ids or <job>.<step>, several in one word with commas");
  app.add_option("-u,--user", options.user, "cancel every job of this user")->type_name("user_name");
  app.add_option("-s,--signal", options.signal, "send this signal instead of cancelling")->type_name("name|number");
  app.add_flag("-b,--batch", options.batch, "signal only the batch shell, not its children nor the other steps");
  app.add_flag("-f,--full", options.full, "signal every step, the batch shell and its children included");
  app.add_flag("-v,--verbose", options.verbose, "say what is sent to each job and step");
  addConfDirOption(app, options.confDir);
}

void declareSprioOptions(CLI::App& app, SprioOptions& options) {
  declareHelpFlags(app, options.help);
  app.add_flag("-h,--noheader", options.noHeader, "print no header line");
  app.add_option("-j,--jobs", options.jobs, "only these jobs (comma-separated ids)")->type_name("job(s)");
  app.add_option("-u,--user", options.users, "only these users' jobs, with a USER column")->type_name("user(s)");
  app.add_option("-p,--partition", options.partitions, "only jobs of these partitions")->type_name("partition(s)");
  app.add_flag("-l,--long", options.longList, "every factor's column");
  app.add_flag("-n,--norm", options.normalized, "the factors before weighting (0 to 1)");
  app.add_flag("-w,--weights", options.weights, "the site's PriorityWeight* values");
  app.add_option("-o,--format", options.format, "format string of %codes")->type_name("format");
  addConfDirOption(app, options.confDir);
}

void declareSshareOptions(CLI::App& app, SshareOptions& options) {
  declareHelpFlags(app, options.help);
  app.add_flag("-a,--all", options.all, "every user (without -a or -u: yourself)");
  app.add_option("-u,--users", options.users, "only these users (comma-separated)")->type_name("user_list");
  app.add_flag("-n,--noheader", options.noHeader, "print no header lines");
  app.add_flag("-p,--parsable", options.parsable, "fields separated by '|', with a trailing '|'");
  app.add_flag("-P,--parsable2", options.parsable2, "fields separated by '|', without a trailing '|'");
  addConfDirOption(app, options.confDir);
}

void declareScontrolOptions(CLI::App& app, ScontrolOptions& options) {
  declareHelpFlags(app, options.help, "-h,--help");
  app.add_option("command", options.words,
                 "show job|step|node|partition|config|drainedtres|hostnames|hostlist|hostlistsorted [name], "
                 "update NodeName=... State=... Reason=..., update JobId=... TimeLimit=|Gres=|TresBind=|..., "
                 "update TresName=... NodeName=... Index=|Uuid=|Count=... Action=... Reason=..., "
                 "write batch_script JOBID [FILE], "
                 "suspend|resume|hold|release|requeue JOBID[,JOBID...] ..., ping, reconfigure, "
                 "shutdown [slurmctld|controller]");
  app.add_flag("-a,--all", options.all, "show all partitions and their jobs (Gantry hides none)");
  // Slurm counts -d (-dd for more); Gantry has one level, so repeats are taken as one.
  app.add_flag("-d,--details", options.details, "more detail (allocations, GRES use)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_flag("-o,--oneliner", options.oneLiner, "print each record on one line");
  app.add_flag("--json", options.json, "print JSON");
  addConfDirOption(app, options.confDir);
}

void declareSacctmgrOptions(CLI::App& app, SacctmgrOptions& options) {
  declareHelpFlags(app, options.help, "-h,--help");
  app.add_flag("-p,--parsable", options.parsable, "'|' after every field");
  app.add_flag("-P,--parsable2", options.parsable2, "'|' between fields");
  app.add_flag("-n,--noheader", options.noHeader, "no header line");
  app.add_flag("--json", options.json, "print JSON");
  app.add_flag("-i,--immediate", options.immediate, "accepted for compatibility (nothing is changed)");
  addConfDirOption(app, options.confDir);
  app.add_option("command", options.command, "show event [Nodes=...] [States=...] [Start=...] [End=...] [Format=...]");
  app.allow_extras(false);
}

}  // namespace gantry::cli
