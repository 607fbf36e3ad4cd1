"""gRPC in and out: the Jobs servicer, its mapping and the Devices client. Mapping only."""
