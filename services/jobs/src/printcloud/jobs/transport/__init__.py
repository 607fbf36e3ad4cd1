"""gRPC in and out: the Jobs servicer and the Devices client. Mapping only."""
