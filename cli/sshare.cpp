// gantry sshare: each user's share, recorded usage and fair-share factor
// (priority/multifactor), in Slurm's columns. Gantry has no account tree:
// every user holds one share under the root account.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <sstream>
#include <set>

#include "cli/controller_client.h"
#include "cli/help_flags.h"
#include "cli/query_options.h"
#include "cli/subcommands.h"
#include "common/auth/identity.h"

namespace gantry::cli {
namespace {

struct Column {
  const char* header;
  int width;  // negative: left-justified, as Slurm's print_fields
};
const Column kColumns[] = {{"Account", -20}, {"User", 10},      {"RawShares", 10}, {"NormShares", 11},
                           {"RawUsage", 11}, {"EffectvUsage", 13}, {"FairShare", 10}};

std::string fixed(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%f", value);
  return text;
}

std::string line(const std::vector<std::string>& cells, const SshareOptions& options) {
  std::string out;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (options.parsable || options.parsable2) {
      out += cells[i];
      if (options.parsable || i + 1 < cells.size()) out += "|";
      continue;
    }
    int width = kColumns[i].width;
    size_t size = static_cast<size_t>(std::abs(width));
    std::string cell = cells[i].substr(0, size);
    std::string pad(size - cell.size(), ' ');
    out += (width < 0 ? cell + pad : pad + cell) + " ";
  }
  return out + "\n";
}

}  // namespace

int runSshare(const std::vector<std::string>& args) {
  SshareOptions options;
  CLI::App app{"gantry sshare: users' shares, usage and fair-share factors", "sshare"};
  declareSshareOptions(app, options);
  auto parsed = parseWords(app, args);
  if (!parsed) return reportError("sshare", parsed.error());
  if (!parsed->usageError.empty()) return reportUsageError("sshare", parsed->usageError);
  if (auto answer = helpAnswer(app, "sshare", *parsed, options.help)) {
    std::cout << *answer;
    return 0;
  }
  gantry::v1::ListSharesRequest request;
  if (!options.users.empty()) {
    std::stringstream names(options.users);
    for (std::string name; std::getline(names, name, ',');) {
      if (!name.empty()) request.add_users(name);
    }
  } else if (!options.all) {
    request.add_users(auth::userName(getuid()));
  }
  auto client = ControllerClient::connect(options.confDir);
  if (!client) return reportError("sshare", client.error());
  auto response = client->call<gantry::v1::ListSharesResponse>(
      [&](auto& stub, grpc::ClientContext* context, auto* out) { return stub.ListShares(context, request, out); });
  if (!response) return reportError("sshare", response.error());
  if (!options.noHeader) {
    std::vector<std::string> headers;
    for (const Column& column : kColumns) headers.push_back(column.header);
    std::cout << line(headers, options);
    if (!options.parsable && !options.parsable2) {
      std::vector<std::string> dashes;
      for (const Column& column : kColumns) dashes.push_back(std::string(static_cast<size_t>(std::abs(column.width)), '-'));
      std::cout << line(dashes, options);
    }
  }
  double total = 0;
  for (const auto& row : response->rows()) total += row.raw_usage();
  std::cout << line({"root", "", "", fixed(0), std::to_string(std::llround(total)), fixed(total > 0 ? 1.0 : 0.0), ""},
                    options);
  for (const auto& row : response->rows()) {
    std::cout << line({" root", row.user(), std::to_string(row.raw_shares()), fixed(row.norm_shares()),
                       std::to_string(std::llround(row.raw_usage())), fixed(row.effective_usage()),
                       fixed(row.fairshare())},
                      options);
  }
  return 0;
}

}  // namespace gantry::cli
