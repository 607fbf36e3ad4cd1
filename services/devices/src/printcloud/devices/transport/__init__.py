"""The devices service's gRPC servicer and Kafka consumer: mapping to and from the domain only."""
