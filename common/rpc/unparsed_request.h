// Requests a server cannot parse. gRPC's synchronous server answers a
// request whose bytes are not a valid encoding of the method's message
// (malformed wire format, invalid UTF-8 in a proto3 string field, nesting
// past protobuf's recursion limit of 100) with INTERNAL and an empty
// message, before any handler runs. The interceptor installed here turns
// that answer into INVALID_ARGUMENT with a message that names the method
// and, for invalid UTF-8, the field protobuf rejected:
//   "cannot parse the request of /gantry.v1.Controller/SubmitJob: string
//    field gantry.v1.JobSpec.name is not valid UTF-8"
//
// The field name comes from protobuf's own log line for the failure, caught
// by a log handler on the thread that parses the request (gRPC parses and
// runs the interceptor's POST_RECV_MESSAGE hook on one thread); every line
// still goes on to the handler protobuf had before.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

namespace gantry::rpc {

// Installs the interceptor on a server about to be built. Call once per
// builder, before BuildAndStart; it sets the builder's interceptor list.
void answerUnparsedRequests(grpc::ServerBuilder& builder);

// The message the interceptor answers with (for tests): `method` as gRPC
// names it, `detail` the reason when one is known.
std::string unparsedRequestMessage(const std::string& method, const std::string& detail);

}  // namespace gantry::rpc
