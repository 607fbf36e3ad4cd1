from printcloud.core.settings import CommonSettings


class Settings(CommonSettings):
    service_name: str = "dispatcher"
