"""The interop server's OAuth2 validator: django-oauth-toolkit's, with the standard `email` and
`name` claims (scopes `email` and `profile`) in ID tokens and UserInfo answers."""

from oauth2_provider.oauth2_validators import OAuth2Validator


class InteropValidator(OAuth2Validator):
    def get_additional_claims(self, request):
        user = request.user
        return {"email": user.email, "name": user.get_full_name() or user.get_username()}
