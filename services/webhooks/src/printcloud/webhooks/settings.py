from printcloud.core.settings import CommonSettings


class Settings(CommonSettings):
    service_name: str = "webhooks"
    grpc_listen: str = "127.0.0.1:50053"
